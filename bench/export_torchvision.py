#!/usr/bin/python3
"""Export torchvision models (random weights; nothing is downloaded) to ONNX as
../shared/models/export_models.py does: opset 13, a dynamic batch axis ("batch") on the
input and the output. For bench/memory_plan --onnx (DenseNet-121 and ConvNeXt-Tiny in
docs/bench.md) and any other model a user wants to try.

Usage: /usr/bin/python3 bench/export_torchvision.py OUT_DIR [NAME ...]
       (default names: densenet121 convnext_tiny; any torchvision.models constructor)
Needs Debian's python3-torch and python3-torchvision.
"""
import os
import sys

import torch
import torchvision


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    names = sys.argv[2:] or ["densenet121", "convnext_tiny"]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name in names:
        model = getattr(torchvision.models, name)(weights=None).eval()
        path = os.path.join(out, f"{name}_dyn.onnx")
        torch.onnx.export(model, torch.randn(1, 3, 224, 224), path, opset_version=13, input_names=["input"],
                          output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        print("wrote", path)


if __name__ == "__main__":
    main()
