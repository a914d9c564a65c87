"""PASS's parameter rules (paper 001, §2.2 Fig. 2, §3.2, §3.3) applied to measured throughput
curves: throughput against queue depth, one curve per working-set size.

- The **peak depth** of a curve is the depth with the highest throughput (§2.2: "reaches its peak at
  a specific Qdep point, after which it drops gradually"). On a curve that only rises and levels off
  it is the deepest depth measured, which says nothing: the **knee depth**, the smallest depth whose
  throughput reaches ``fraction`` of the curve's highest [INFER: the paper's curves peak, so it gives
  no rule for one that saturates], is the batch threshold then (§3.3: "the optimal batch threshold
  ... can be determined empirically as in Section 2").
- The **rise** of a curve is its highest throughput over its throughput at the shallowest depth. The
  paper's 1 and 2 GB curves "remain nearly invariant regardless of the Qdep" and it chooses the
  smallest size whose curve does not (§3.2: "4 GB or multiple of 4 GB rather than 1 or 2 GB"): the
  **region size** is the smallest working set whose rise reaches ``flat`` [INFER: the paper does not
  say how flat is flat].
"""

from __future__ import annotations

from typing import Any


def peak_depth(curve: dict[Any, float]) -> float:
    """The depth (key) with the highest throughput; the shallowest of equals."""
    return min(curve, key=lambda d: (-curve[d], d))


def knee_depth(curve: dict[Any, float], fraction: float) -> float:
    """The smallest depth whose throughput reaches ``fraction`` of the curve's highest."""
    top = max(curve.values())
    return min(d for d, v in curve.items() if v >= fraction * top)


def rise(curve: dict[Any, float]) -> float:
    """The curve's highest throughput over its throughput at the shallowest depth."""
    first = curve[min(curve)]
    return max(curve.values()) / first if first > 0 else float("nan")


def region_size(rises: dict[Any, float], flat: float) -> Any:
    """The smallest working-set size whose curve rises by at least ``flat`` (``None``: none does)."""
    sizes = sorted(s for s, r in rises.items() if r >= flat)
    return sizes[0] if sizes else None
