// OMPEval on Sparring's hands, for benchmarks/evaluator.py (which builds and runs this).
//
//   driver <hands.bin> <ranks.bin> <repeats>
//
// hands.bin: n x 7 bytes, each card 4 * rank + suit (rank 0 = deuce .. 12 = ace). OMPEval
// numbers cards the same way with its own order of suits; a hand's value does not depend on
// which suit is which, so the cards are used as they are. Each evaluation builds its Hand from
// the 7 bytes (OMPEval's fastest way on this machine class), and the timed passes sum the ranks
// as OMPEval's own benchmark ("Rand1") does: no output array is written while timed, so the
// figure is OMPEval's best case. The best of `repeats` passes is printed; then one more pass,
// untimed, writes the ranks to ranks.bin (uint16 each) for the caller to compare.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <omp/HandEvaluator.h>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: driver <hands.bin> <ranks.bin> <repeats>\n");
        return 2;
    }
    std::FILE* in = std::fopen(argv[1], "rb");
    if (!in) { std::perror(argv[1]); return 2; }
    std::vector<uint8_t> cards;
    uint8_t buffer[1 << 16];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, in)) > 0) cards.insert(cards.end(), buffer, buffer + got);
    std::fclose(in);
    const size_t n = cards.size() / 7;
    std::vector<uint16_t> ranks(n);
    omp::HandEvaluator eval;
    omp::Hand one[52];
    for (unsigned c = 0; c < 52; ++c) one[c] = omp::Hand(c);
    auto hand_of = [&](const uint8_t* h) {
        return omp::Hand::empty() + one[h[0]] + one[h[1]] + one[h[2]] + one[h[3]] + one[h[4]]
               + one[h[5]] + one[h[6]];
    };
    double best = 0.0;
    unsigned sum = 0;
    for (int r = 0; r < std::atoi(argv[3]); ++r) {
        auto start = std::chrono::steady_clock::now();
        const uint8_t* h = cards.data();
        for (size_t i = 0; i < n; ++i, h += 7) sum += eval.evaluate(hand_of(h));
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (n / s > best) best = n / s;
    }
    const uint8_t* h = cards.data();
    for (size_t i = 0; i < n; ++i, h += 7) ranks[i] = eval.evaluate(hand_of(h));
    std::FILE* out = std::fopen(argv[2], "wb");
    if (!out) { std::perror(argv[2]); return 2; }
    std::fwrite(ranks.data(), sizeof(uint16_t), n, out);
    std::fclose(out);
    std::printf("%.0f\n", best);
    std::fprintf(stderr, "(sum of ranks %u)\n", sum);  // (used: the timed loop is not dropped)
    return 0;
}
