"""PNG plots of one run: num_envs and thread scaling per game, and a
log-scale bar chart against the peers."""

from __future__ import annotations

import os

from .measure import median_of, ok
from .peers import PEERS
from .settings import REF_ENVS
from .targets import ref_vector


def plot(res: dict, out_dir: str, prefix: str = "suite") -> list:
    """PNG plots; returns the file names written (relative to ``out_dir``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    peers = res.get("peers", {})
    cp_vec = peers.get("cartpole_vector", {}).get("by_num_envs", {})
    for name, g in res["games"].items():
        fig, (ax, ax2) = plt.subplots(
            1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2.2, 1]}
        )
        tcounts: set[int] = set()
        for ci, (pkey, cfg) in enumerate(g["configs"].items()):
            tag = f" {pkey}p" if g["multi_agent"] else ""
            multi = len(g["configs"]) > 1
            for li, (layer, style) in enumerate((("vector", "o-"), ("batch", "s--"))):
                pts = [(int(n), f["median"]) for n, f in cfg.get(layer, {}).items() if ok(f)]
                if pts:
                    xs, ys = zip(*sorted(pts))
                    label = (
                        "vector env (Gymnasium adapter)"
                        if layer == "vector"
                        else "batched core (step_autoreset)"
                    ) + tag
                    ax.plot(xs, ys, style, color=f"C{ci if multi else li}", label=label)
            k = cfg.get("kernel", {})
            kpts = {int(t): f["median"] for t, f in k.items() if ok(f)}
            if kpts:
                t_best = max(kpts, key=lambda t: kpts[t])
                ax.axhline(
                    kpts[t_best],
                    ls=":",
                    color=f"C{ci if multi else 2}",
                    label=f"kernel (random_rollout), {t_best} thread"
                    f"{'s' if t_best > 1 else ''}{tag}",
                )
                xs, ys = zip(*sorted(kpts.items()))
                tcounts.update(xs)
                ax2.plot(xs, ys, "o-", color=f"C{ci if multi else 2}", label=f"kernel{tag}")
                ax2.plot(xs, [ys[0] * x / xs[0] for x in xs], ":", color="gray")
        pts = [(int(n), f["median"]) for n, f in cp_vec.items() if ok(f)]
        if pts:
            xs, ys = zip(*sorted(pts))
            ax.plot(xs, ys, "^-", color="black", alpha=0.6, label="CartPole-v1 numpy vector (peer)")
        leduc = median_of(peers.get("os_leduc_poker"))
        if leduc:
            ax.axhline(
                leduc,
                ls="--",
                color="tab:red",
                alpha=0.6,
                label="OpenSpiel leduc_poker + obs (peer)",
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("num_envs")
        ax.set_ylabel("env-steps per second")
        ax.set_title(f"{g['env_id']}: num_envs scaling")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right", ncol=2 if len(g["configs"]) > 1 else 1)
        if tcounts:
            ax2.set_xticks(sorted(tcounts))
        ax2.set_xlabel("threads")
        ax2.set_ylabel("kernel env-steps per second")
        ax2.set_title("kernel thread scaling (dotted: linear)")
        ax2.grid(True, alpha=0.3)
        ax2.legend(fontsize=8)
        fig.suptitle(
            f"{res['machine']['cpu']}, {res['machine']['cores']} cores ({res['mode']} run)",
            fontsize=9,
        )
        fig.tight_layout()
        fname = f"{prefix}_scaling_{name}.png"
        fig.savefig(os.path.join(out_dir, fname), dpi=110)
        plt.close(fig)
        written.append(fname)

    bars = []  # (label, value, is_peer)
    for name, g in res["games"].items():
        for pkey, cfg in g["configs"].items():
            tag = name + (f" {pkey}p" if g["multi_agent"] else "")
            kern = cfg.get("kernel", {})
            for t in sorted(kern, key=int):
                if median_of(kern[t]) and (t == "1" or t == max(kern, key=int)):
                    bars.append(
                        (
                            f"{tag}: kernel, {t} thread{'s' if t != '1' else ''}",
                            kern[t]["median"],
                            False,
                        )
                    )
            layer, f = ref_vector(cfg)
            if f is not None and median_of(f):
                bars.append((f"{tag}: {layer} x{REF_ENVS}", f["median"], False))
            p = median_of(cfg.get("python"))
            if p:
                bars.append(
                    (f"{tag}: {'AEC loop' if g['multi_agent'] else 'single env'}", p, False)
                )
        for algo, label in (("fast_ppo", "train fast PPO"), ("sb3", "train SB3 MaskablePPO")):
            v = median_of(g.get("training", {}).get(algo))
            if v:
                bars.append((f"{name}: {label}", v, False))
    for key, (label, *_r) in PEERS.items():
        v = median_of(peers.get(key))
        if v:
            bars.append((label, v, True))
    v = median_of(cp_vec.get(str(REF_ENVS)))
    if v:
        bars.append((f"CartPole-v1 numpy vector x{REF_ENVS}", v, True))
    if bars:
        fig, ax = plt.subplots(figsize=(9, 0.38 * len(bars) + 1.2))
        labels = [b[0] for b in bars][::-1]
        vals = [b[1] for b in bars][::-1]
        colors = ["tab:gray" if b[2] else "tab:blue" for b in bars][::-1]
        ax.barh(labels, vals, color=colors)
        ax.set_xscale("log")
        for y, v in enumerate(vals):
            ax.text(v, y, f" {v:,.0f}", va="center", fontsize=8)
        ax.set_xlabel("steps per second (log); blue: dungeonrl, gray: peers")
        ax.set_title(
            f"dungeonrl vs peers, same run ({res['machine']['cpu']}, "
            f"{res['machine']['cores']} cores)",
            fontsize=10,
        )
        ax.set_xlim(right=max(vals) * 8)
        fig.tight_layout()
        fname = f"{prefix}_peers.png"
        fig.savefig(os.path.join(out_dir, fname), dpi=110)
        plt.close(fig)
        written.append(fname)
    return written
