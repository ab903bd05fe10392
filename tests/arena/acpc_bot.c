/* A minimal ACPC limit hold'em player in C (protocol 2.0.0), for tests/arena: it works out
   whose turn it is from the betting (Sparring's game: heads up position 1 opens preflop, else
   position 2; later rounds position 0) and checks or calls.  cc -O2 -o acpc_bot acpc_bot.c */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int to_act(const char *betting, int players) {
  int folded[10] = {0}, waiting[10], out = 0, round = 0, seat = players == 2 ? 1 : 2 % players;
  for (int p = 0; p < players; p++) waiting[p] = 1;
  for (const char *c = betting;; c++) {
    if (*c == '/' || *c == '\0') {
      int left = 0;
      for (int p = 0; p < players; p++) left += waiting[p];
      if (*c == '\0') return (round == 3 && !left) ? -1 : seat;
      round++; seat = 0;
      while (folded[seat]) seat = (seat + 1) % players;
      for (int p = 0; p < players; p++) waiting[p] = !folded[p];
      continue;
    }
    if (*c == 'f') { folded[seat] = 1; waiting[seat] = 0; out++; }
    else if (*c == 'r') { for (int p = 0; p < players; p++) waiting[p] = !folded[p] && p != seat; }
    else waiting[seat] = 0;
    if (players - out == 1) return -1;
    do seat = (seat + 1) % players; while (folded[seat]);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
  inet_pton(AF_INET, argv[1], &at.sin_addr);
  if (connect(fd, (struct sockaddr *)&at, sizeof at) != 0) return 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  FILE *in = fdopen(fd, "r");
  char line[4096], answer[4200], betting[512];
  write(fd, "VERSION:2.0.0\r\n", 15);
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\r\n")] = '\0';
    int position, hand, n = 0;
    if (sscanf(line, "MATCHSTATE:%d:%d:%n", &position, &hand, &n) < 2 || !n) continue;
    const char *cards = strchr(line + n, ':');
    if (!cards) continue;
    snprintf(betting, sizeof betting, "%.*s", (int)(cards - (line + n)), line + n);
    int players = 1;
    for (const char *c = cards + 1; *c && *c != '/'; c++) players += *c == '|';
    if (to_act(betting, players) == position) {
      int len = snprintf(answer, sizeof answer, "%s:c\r\n", line);
      write(fd, answer, len);
    }
  }
  return 0;
}
