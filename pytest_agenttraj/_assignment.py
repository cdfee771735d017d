"""Maximum bipartite matching for pairing tool calls, cheap when cheaper passes pair everything.

Callers first pair what they can by hashing; ``complete_matching`` then tries a first-fit pass in
a caller-chosen candidate order, and only for the calls still unpaired runs the augmenting-path
search (Kuhn's algorithm) that finds a pairing whenever one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["complete_matching"]


def complete_matching(
    n_left: int,
    n_right: int,
    related: Callable[[int, int], bool],
    match_left: list[int],
    match_right: list[int],
    first_choices: Callable[[int], Iterable[int]] | None = None,
) -> None:
    """Grow the partial pairing in ``match_left``/``match_right`` (-1 = unpaired) to a maximum one.

    ``related(i, j)`` says whether left ``i`` may pair with right ``j``; answers are cached,
    since the augmenting search asks again. ``first_choices(i)`` lists rights to try first.
    """
    cache: dict[tuple[int, int], bool] = {}

    def rel(i: int, j: int) -> bool:
        key = (i, j)
        answer = cache.get(key)
        if answer is None:
            answer = cache[key] = related(i, j)
        return answer

    free = [i for i in range(n_left) if match_left[i] == -1]
    if not free:
        return
    still_free = []
    for i in free:
        candidates: Iterable[int] = first_choices(i) if first_choices else range(n_right)
        for j in candidates:
            if match_right[j] == -1 and rel(i, j):
                match_left[i], match_right[j] = j, i
                break
        else:
            still_free.append(i)
    if not still_free or -1 not in match_right:
        return
    for root in still_free:
        _augment(root, n_right, rel, match_left, match_right)


def _augment(
    root: int,
    n_right: int,
    rel: Callable[[int, int], bool],
    match_left: list[int],
    match_right: list[int],
) -> bool:
    """One depth-first search for an augmenting path from ``root``; flips it when found."""
    visited: set[int] = set()
    path: list[tuple[int, int]] = []
    stack = [(root, iter(range(n_right)))]
    while stack:
        left, rights = stack[-1]
        for j in rights:
            if j in visited or not rel(left, j):
                continue
            visited.add(j)
            path.append((left, j))
            owner = match_right[j]
            if owner == -1:
                for i, r in path:
                    match_left[i], match_right[r] = r, i
                return True
            stack.append((owner, iter(range(n_right))))
            break
        else:
            stack.pop()
            if path:
                path.pop()
    return False
