"""The detected program speeds of vios2016's blocks at VIOS's wear stages (docs/device.md).

Runs the simulator once per stage with process variation on (one request: only the drive's
initial speed detection matters) and prints the share of blocks per ISPP step; with an output
path, also draws them. Usage: python docs/examples/device_speeds.py [figure.png]
"""

import sys

import flashsched

STAGES = (6_000, 9_000, 12_000, 15_000)


def shares(pe: int, seed: int = 42) -> dict[float, float]:
    r = flashsched.simulate("vios2016", {"kind": "synthetic", "synthetic": {"requests": 1}},
                            sets=["device.variation.enabled=true", f"ftl.precondition.pe_cycles={pe}", f"seed={seed}"])
    steps = r.json["ssd"]["variation"]["detected_steps"]
    total = sum(s["blocks"] for s in steps)
    return {s["step_v"]: 100.0 * s["blocks"] / total for s in steps}


def main() -> None:
    table = {pe: shares(pe) for pe in STAGES}
    steps = sorted(next(iter(table.values())), reverse=True)
    print("| P/E | " + " | ".join(f"{s:.2f} V" for s in steps) + " | mean tPROG |")
    print("|---|" + "---|" * (len(steps) + 1))
    for pe, sh in table.items():
        mean = sum(600 * 0.30 / s * p for s, p in sh.items()) / 100
        print(f"| {pe:,} | " + " | ".join(f"{sh[s]:.1f}" if sh[s] >= 0.05 else "" for s in steps) + f" | {mean:.0f} us |")
    if len(sys.argv) > 1:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 3.4))
        width = 0.8 / len(STAGES)
        colors = ["#E69F00", "#56B4E9", "#009E73", "#D55E00"]  # Okabe-Ito
        for i, (pe, sh) in enumerate(table.items()):
            ax.bar([j + (i - 1.5) * width for j in range(len(steps))], [sh[s] for s in steps], width,
                   label=f"{pe // 1000}K P/E", color=colors[i])
        ax.set_xticks(range(len(steps)), [f"{s:.2f}\n{600 * 0.30 / s:.0f}" for s in steps])
        ax.set_xlabel("detected ISPP step (V) and program time (us)")
        ax.set_ylabel("blocks (%)")
        ax.set_title("vios2016: detected program speed per wear stage")
        ax.legend(frameon=False)
        fig.tight_layout()
        fig.savefig(sys.argv[1], dpi=120)


if __name__ == "__main__":
    main()
