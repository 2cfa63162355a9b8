#!/usr/bin/env python3
"""torchvision 0.14's detection models through ge and ONNX Runtime, compared with torch.

Each model gets random weights and score thresholds lowered to 0 (so that it returns a
full list), one 320x320 image (RetinaNet resizes it to 800x800 itself), and is exported
with one image input at opsets 13 and 17 into OUT (once: the files are kept). Then each
file runs in ge (`gec run`) and in ONNX Runtime (bench/peers/ort_outputs.js) in the same
process run of this script, and the detections are compared with torch's as sets: random
weights make many scores tie, so NMS and top-k may keep different boxes in any correct
engine, and ge is held to what ONNX Runtime gives on the same file.

  /usr/bin/python3 bench/detection.py --gec build/release/src/tools/gec [--out build/detection]
      [--threads 1] [--runs 5] [--models ssdlite320_mobilenet_v3_large,...] [--opsets 13,17]

Prints a row per file: detections (torch / ge / ORT), the sorted scores' largest
difference from torch's and the boxes' mean distance to torch's nearest (ge, ORT), ge
against ORT, the masks' largest and mean difference where there are masks, and the p50
latencies with their ratio. Needs python3-torch, python3-torchvision, python3-onnx,
python3-numpy (Debian) and Node.js with bench/peers' npm packages (scripts/dev bench).
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["ssdlite320_mobilenet_v3_large", "retinanet_resnet50_fpn", "fasterrcnn_mobilenet_v3_large_320_fpn",
          "maskrcnn_resnet50_fpn"]


def make(name):
    from torchvision.models import detection as D
    kw = dict(weights=None, weights_backbone=None)
    if name == "ssdlite320_mobilenet_v3_large":
        return D.ssdlite320_mobilenet_v3_large(**kw, score_thresh=0.0)
    if name == "retinanet_resnet50_fpn":
        return D.retinanet_resnet50_fpn(**kw, score_thresh=0.0)
    if name == "fasterrcnn_mobilenet_v3_large_320_fpn":
        return D.fasterrcnn_mobilenet_v3_large_320_fpn(**kw, box_score_thresh=0.0)
    if name == "maskrcnn_resnet50_fpn":
        return D.maskrcnn_resnet50_fpn(**kw, box_score_thresh=0.0, min_size=320, max_size=320)
    raise SystemExit(f"detection.py: unknown model {name}")


def export(name, opsets, out):
    """Writes OUT/<name>_<opset>.onnx, OUT/<name>_input.npy and torch's outputs once."""
    wanted = [o for o in opsets if not os.path.exists(f"{out}/{name}_{o}.onnx")]
    if not wanted and os.path.exists(f"{out}/{name}_torch_scores.npy"):
        return
    import torch
    torch.manual_seed(0)
    model = make(name).eval()
    x = torch.rand(3, 320, 320, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        got = model([x])[0]
    np.save(f"{out}/{name}_input.npy", x.numpy())
    for k, v in got.items():
        np.save(f"{out}/{name}_torch_{k}.npy", v.numpy())
    for o in wanted:
        torch.onnx.export(model, ([x],), f"{out}/{name}_{o}.onnx.part", opset_version=o, input_names=["image"])
        os.replace(f"{out}/{name}_{o}.onnx.part", f"{out}/{name}_{o}.onnx")


def outputs(folder):
    """A run's outputs by kind: boxes [N,4], scores [N] f32, labels [N] i64, masks [N,1,H,W]."""
    found = {}
    for f in glob.glob(folder + "/*.npy"):
        v = np.load(f)
        if v.ndim == 2 and v.shape[-1] == 4:
            found["boxes"] = v
        elif v.ndim == 1 and v.dtype == np.float32:
            found["scores"] = v
        elif v.ndim == 1 and v.dtype == np.int64:
            found["labels"] = v
        elif v.ndim == 4:
            found["masks"] = v
    return found


def nearest(a, b):
    """For each row of a, the index of b's nearest row (largest coordinate difference)."""
    return np.abs(a[:, None, :] - b[None, :, :]).max(-1).argmin(1)


def box_distance(a, b):
    if len(a) == 0 or len(b) == 0:
        return float("nan") if len(a) != len(b) else 0.0
    return float(np.abs(a - b[nearest(a, b)]).max(-1).mean())


def score_error(a, b):
    if len(a) != len(b):
        return float("nan")
    return float(np.abs(np.sort(a) - np.sort(b)).max()) if len(a) else 0.0


def mask_error(a, b):
    """Largest and mean difference of the masks, each matched to the other's nearest box."""
    if "masks" not in a or "masks" not in b or len(a["boxes"]) == 0 or len(b["boxes"]) == 0:
        return None
    d = np.abs(a["masks"] - b["masks"][nearest(a["boxes"], b["boxes"])])
    return float(d.max()), float(d.mean())


def run_ge(gec, model, image, folder, threads, runs):
    r = subprocess.run([gec, "run", "--model", model, "--input", f"image={image}", "--output_dir", folder,
                        "--iterations", str(runs), "--threads", str(threads)], capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
    return float(re.search(r"p50 ([0-9.]+) ms", r.stdout).group(1)), ""


def run_ort(model, image, folder, threads, runs):
    r = subprocess.run(["node", f"{HERE}/peers/ort_outputs.js", model, image, folder, str(threads), str(runs)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
    return float(re.search(r"p50_ms ([0-9.]+)", r.stdout).group(1)), ""


def main():
    warnings.filterwarnings("ignore")
    p = argparse.ArgumentParser()
    p.add_argument("--gec", required=True)
    p.add_argument("--out", default="build/detection")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--opsets", default="13,17")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    opsets = [int(o) for o in a.opsets.split(",")]
    print(f"threads {a.threads}, p50 over {a.runs} runs after one warm-up; scores: the sorted lists' largest "
          "difference; boxes: mean distance (px) to the other's nearest box")
    for name in a.models.split(","):
        export(name, opsets, a.out)
        torch_out = {k: np.load(f"{a.out}/{name}_torch_{k}.npy") for k in ("boxes", "scores", "labels", "masks")
                     if os.path.exists(f"{a.out}/{name}_torch_{k}.npy")}
        image = f"{a.out}/{name}_input.npy"
        for o in opsets:
            model = f"{a.out}/{name}_{o}.onnx"
            runs = {}
            for engine in ("ge", "ort"):
                folder = f"{a.out}/{name}_{o}.{engine}"
                os.makedirs(folder, exist_ok=True)
                for f in glob.glob(folder + "/*.npy"):
                    os.remove(f)
                run = run_ge if engine == "ge" else run_ort
                args = (a.gec, model, image, folder, a.threads, a.runs) if engine == "ge" else \
                    (model, image, folder, a.threads, a.runs)
                p50, error = run(*args)
                runs[engine] = (p50, error, outputs(folder) if p50 is not None else {})
            ge, ort = runs["ge"][2], runs["ort"][2]
            row = f"{name} opset {o}: "
            if runs["ge"][0] is None or runs["ort"][0] is None:
                print(row + f"ge: {runs['ge'][1] or 'ok'}; ORT: {runs['ort'][1] or 'ok'}")
                continue
            row += (f"detections {len(torch_out['scores'])}/{len(ge['scores'])}/{len(ort['scores'])}; "
                    f"scores vs torch {score_error(ge['scores'], torch_out['scores']):.2g} (ORT "
                    f"{score_error(ort['scores'], torch_out['scores']):.2g}); boxes vs torch "
                    f"{box_distance(ge['boxes'], torch_out['boxes']):.3g} (ORT {box_distance(ort['boxes'], torch_out['boxes']):.3g}); "
                    f"ge vs ORT scores {score_error(ge['scores'], ort['scores']):.2g} boxes "
                    f"{box_distance(ge['boxes'], ort['boxes']):.3g}")
            m = mask_error(ge, ort)
            if m:
                row += f"; masks ge vs ORT max {m[0]:.2g} mean {m[1]:.2g}"
            row += f"; p50 ge {runs['ge'][0]:.1f} ms, ORT {runs['ort'][0]:.1f} ms, ratio {runs['ge'][0] / runs['ort'][0]:.2f}"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
