"""Maximum bipartite matching for pairing tool calls, cheap when cheaper passes pair everything.

Callers first pair what they can by hashing; ``complete_matching`` then tries a first-fit pass over
each call's candidates, and only for the calls still unpaired runs the augmenting-path search
(Kuhn's algorithm) that finds a pairing whenever one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["complete_matching"]

Neighbours = Callable[[int], Iterable[int]]


def complete_matching(
    match_left: list[int],
    match_right: list[int],
    neighbours: Neighbours,
    related: Callable[[int, int], bool] | None = None,
) -> None:
    """Grow the partial pairing in ``match_left``/``match_right`` (-1 = unpaired) to a maximum one.

    ``neighbours(i)`` lists the rights that left ``i`` may pair with, best first; when
    ``related`` is given it has the last word on each of them (answers are cached, since the
    augmenting search asks again).
    """
    free = [i for i, j in enumerate(match_left) if j == -1]
    if not free or -1 not in match_right:
        return
    if related is None:
        rel = None
    else:
        cache: dict[tuple[int, int], bool] = {}
        test = related

        def rel(i: int, j: int) -> bool:
            answer = cache.get((i, j))
            if answer is None:
                answer = cache[(i, j)] = test(i, j)
            return answer

    still_free = []
    for i in free:
        for j in neighbours(i):
            if match_right[j] == -1 and (rel is None or rel(i, j)):
                match_left[i], match_right[j] = j, i
                break
        else:
            still_free.append(i)
    for root in still_free:
        if -1 not in match_right:
            return
        _augment(root, neighbours, rel, match_left, match_right)


def _augment(
    root: int,
    neighbours: Neighbours,
    rel: Callable[[int, int], bool] | None,
    match_left: list[int],
    match_right: list[int],
) -> bool:
    """One depth-first search for an augmenting path from ``root``; flips it when found."""
    visited: set[int] = set()
    path: list[tuple[int, int]] = []
    stack = [(root, iter(neighbours(root)))]
    while stack:
        left, rights = stack[-1]
        for j in rights:
            if j in visited or (rel is not None and not rel(left, j)):
                continue
            visited.add(j)
            path.append((left, j))
            owner = match_right[j]
            if owner == -1:
                for i, r in path:
                    match_left[i], match_right[r] = r, i
                return True
            stack.append((owner, iter(neighbours(owner))))
            break
        else:
            stack.pop()
            if path:
                path.pop()
    return False
