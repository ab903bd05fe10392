"""Who takes part in each lance, who wins it by cards, and the end-of-hand count (§6, §7, §9).

``count_hand`` writes the count in lance order and stops the moment a team reaches the target
(V10, the default): later additions are not written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sparring.mus.cards import hand_points, hand_ranks
from sparring.mus.keys import chica_key, grande_key, juego_key, pares_key, punto_key, winner
from sparring.mus.lance import EN_PASO, NO_JUGADO, NO_QUERIDO, QUERIDO, SIN_ENVITE, Lance, team

PARES_VALUE = {1: 1, 2: 2, 3: 3}  # pareja, medias, duples


@dataclass(frozen=True)
class Table:
    """The four hands of a hand of Mus (faces per seat) and who is mano."""

    faces: tuple[tuple[int, ...], ...]
    mano: int
    ocho_reyes: bool = True
    treinta_y_una_real: bool = False  # V9: three 7s and a figure beat every other 31

    def ranks(self, seat: int) -> tuple[int, ...]:
        return hand_ranks(self.faces[seat], self.ocho_reyes)

    def total(self, seat: int) -> int:
        return hand_points(self.faces[seat], self.ocho_reyes)

    @property
    def order(self) -> tuple[int, ...]:
        return tuple((self.mano + d) % 4 for d in range(4))

    def key(self, lance: str, seat: int):
        r = self.ranks(seat)
        if lance == "grande":
            return grande_key(r)
        if lance == "chica":
            return chica_key(r)
        if lance == "pares":
            return pares_key(r)
        if lance == "juego":
            faces = self.faces[seat]
            real = (
                self.treinta_y_una_real
                and sorted(faces)[:3] == [7, 7, 7]
                and self.total(seat) == 31
            )
            return juego_key(self.total(seat), real=real)
        return punto_key(self.total(seat))

    def anyone_has_juego(self) -> bool:
        return any(self.key("juego", s) is not None for s in range(4))

    def participants(self, lance: str) -> tuple[int, ...]:
        """Seats taking part in ``lance``, in speaking order from the mano."""
        if lance in ("grande", "chica", "punto"):
            return self.order
        return tuple(s for s in self.order if self.key(lance, s) is not None)

    def card_winner(self, lance: str) -> int | None:
        """The best hand among the participants (None when nobody takes part); ties to the
        player nearest the mano."""
        taking_part = set(self.participants(lance))
        keys = [self.key(lance, s) if s in taking_part else None for s in range(4)]
        return winner(keys, self.mano)

    def winning_team(self, lance: str) -> int:
        """The team of ``card_winner`` for a lance that is played (someone takes part)."""
        seat = self.card_winner(lance)
        if seat is None:
            raise ValueError(f"nobody takes part in {lance}")
        return team(seat)

    def team_value(self, lance: str, team_id: int) -> int:
        """Pares or juego tantos of both members of a team (§9.2)."""
        total = 0
        for seat in (team_id, team_id + 2):
            if lance == "pares":
                key = pares_key(self.ranks(seat))
                total += 0 if key is None else PARES_VALUE[key[0]]
            elif lance == "juego" and juego_key(self.total(seat)) is not None:
                total += 3 if self.total(seat) == 31 else 2
        return total


@dataclass
class Count:
    """The running score of a juego and what the count wrote."""

    scores: list[int]
    target: int = 40
    winner: int | None = None
    entries: list[tuple[str, int, int]] = field(default_factory=list)  # (lance, team, tantos)
    immediate: bool = True  # V10: the juego ends the moment a team reaches the target

    def add(self, lance: str, team_id: int, tantos: int) -> bool:
        """Write tantos; True when this ends the juego (the team reached the target)."""
        if self.winner is not None or tantos == 0:
            return self.winner is not None
        self.scores[team_id] += tantos
        self.entries.append((lance, team_id, tantos))
        if self.immediate and self.scores[team_id] >= self.target:
            self.winner = team_id
        return self.winner is not None

    def settle(self) -> int | None:
        """At the end of the hand (V10 off): the team at or above the target with more tantos
        (the mano's side of the table is not favoured: equal scores wait for the next hand)."""
        if (
            self.winner is None
            and max(self.scores) >= self.target
            and self.scores[0] != self.scores[1]
        ):
            self.winner = int(self.scores[1] > self.scores[0])
        return self.winner


def count_hand(
    table: Table,
    lances: Mapping[str, Lance],
    count: Count,
    order: Sequence[str] = ("grande", "chica", "pares", "juego", "punto"),
) -> Count:
    """The end-of-hand count (§9.3); tantos of refused bets were written at once already."""
    for name in order:
        lance = lances.get(name)
        if lance is None or lance.status == NO_JUGADO:
            continue
        if name in ("grande", "chica"):
            w = table.winning_team(name)
            if lance.status == EN_PASO:
                stop = count.add(name, w, 1)
            elif lance.status == QUERIDO:
                stop = count.add(name, w, lance.pending)
            else:
                stop = False
        elif name in ("pares", "juego"):
            if lance.status in (NO_QUERIDO, SIN_ENVITE):
                assert lance.winner_team is not None  # set when the lance closed so
                w = lance.winner_team
                stop = count.add(name, w, table.team_value(name, w))
            else:
                w = table.winning_team(name)
                stake = lance.pending if lance.status == QUERIDO else 0
                stop = count.add(name, w, stake + table.team_value(name, w))
        else:  # punto
            if lance.status == NO_QUERIDO:
                assert lance.winner_team is not None  # the proposer's team
                stop = count.add(name, lance.winner_team, 1)
            else:
                w = table.winning_team(name)
                stake = lance.pending if lance.status == QUERIDO else 0
                stop = count.add(name, w, stake + 1)
        if stop:
            break
    count.settle()
    return count
