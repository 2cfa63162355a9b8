#!/usr/bin/python3
"""Export the models of bench/recurrent (random weights, fixed shapes, opset 13) to ONNX:

  lstm2_bi.onnx   nn.LSTM(256, 512, num_layers=2, bidirectional=True) on [64, 8, 256]
                  (sequence 64, batch 8): two LSTM nodes
  gru2_bi.onnx    nn.GRU with the same sizes: two GRU nodes
  r3d_18.onnx     torchvision's r3d_18 on [1, 3, 16, 112, 112] (3-D convs)
  r2plus1d_18.onnx  torchvision's r2plus1d_18 on the same clip ((1,3,3) and (3,1,1) convs)

and manifest.txt (one line per model: file and input dims). Usage:
  /usr/bin/python3 bench/export_recurrent.py OUT_DIR [NAME ...]
Needs Debian's python3-torch and python3-torchvision.
"""
import os
import sys

import torch
import torchvision


class Stack(torch.nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(256, 512, num_layers=2, bidirectional=True)

    def forward(self, x):
        return self.rnn(x)[0]


MODELS = {
    "lstm2_bi": (lambda: Stack(torch.nn.LSTM), [64, 8, 256]),
    "gru2_bi": (lambda: Stack(torch.nn.GRU), [64, 8, 256]),
    "r3d_18": (lambda: torchvision.models.video.r3d_18(weights=None), [1, 3, 16, 112, 112]),
    "r2plus1d_18": (lambda: torchvision.models.video.r2plus1d_18(weights=None), [1, 3, 16, 112, 112]),
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    lines = []
    for name in names:
        make, dims = MODELS[name]
        model = make().eval()
        path = os.path.join(out, f"{name}.onnx")
        with torch.no_grad():
            torch.onnx.export(model, torch.randn(*dims), path, opset_version=13, input_names=["input"],
                              output_names=["output"])
        lines.append(f"{name}.onnx input:{','.join(str(d) for d in dims)}")
        print("wrote", path)
    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
