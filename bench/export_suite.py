#!/usr/bin/python3
"""Export the wide model suite of `ge_bench_models --suite` to ONNX, once, into a cache folder.

Every classification, segmentation and video model of torchvision 0.14 (random weights,
nothing is downloaded; weight matrices torchvision initialises to 0, as ViT's head, drawn
from N(0, 0.02) so that the outputs are not all 0) plus models of our own for what torchvision lacks (transformer
encoders and causal decoders at two widths, bidirectional 2-layer LSTM and GRU stacks, a
small U-Net, an Instance/GroupNorm generator, a k-NN point-cloud block). Each file has a
dynamic batch axis ("batch", dim 0) on its one input and its one output; opset 13, or 17
when the export at 13 fails.

Usage: /usr/bin/python3 bench/export_suite.py OUT_DIR [--list] [--retry] [NAME ...]
  NAME ...  only these (default: all); --list prints the names and exits; --retry exports
            again the models the manifest lists as failed.
Files already in OUT_DIR (with a manifest row) are not exported again. OUT_DIR/manifest.tsv
gets one row per model, tab-separated:

  name  status  file  input  dtype  dims  high  kind  opset  note

status: ok, failed (note: the exception's first line) or skipped (note: why); dims: the
input's dims without the batch, comma-separated; dtype f32 (any values) or i64 (token ids
in [0, high)). Needs Debian's python3-torch and python3-torchvision.
"""
import math
import os
import sys
import warnings

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_recurrent import Stack  # noqa: E402  (the LSTM/GRU stacks of bench/recurrent)

TV = torchvision.models
COLUMNS = ["name", "status", "file", "input", "dtype", "dims", "high", "kind", "opset", "note"]


# ---------------------------------------------------------------------------------------
# Models of our own.

class Attention(torch.nn.Module):
    """Multi-head self-attention; causal: each position attends to itself and before."""

    def __init__(self, width, heads, seq, causal):
        super().__init__()
        self.heads, self.qkv, self.proj = heads, torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
        mask = torch.triu(torch.full((seq, seq), -1e9), 1) if causal else torch.zeros(seq, seq)
        self.register_buffer("mask", mask)

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(w // self.heads) + self.mask, dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, s, w))


class Block(torch.nn.Module):
    def __init__(self, width, heads, seq, causal):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.att = Attention(width, heads, seq, causal)
        self.ffn = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.ffn(self.ln2(x))


class Encoder(torch.nn.Module):
    """Pre-norm encoder over f32 embeddings [batch, seq, width]."""

    def __init__(self, width, heads, layers, seq):
        super().__init__()
        self.blocks = torch.nn.Sequential(*[Block(width, heads, seq, False) for _ in range(layers)])
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(self.blocks(x))


class Decoder(torch.nn.Module):
    """Decoder-only language model over token ids [batch, seq]: embeddings, causal blocks, LM head."""

    def __init__(self, width, heads, layers, seq, vocab):
        super().__init__()
        self.tokens, self.positions = torch.nn.Embedding(vocab, width), torch.nn.Parameter(torch.randn(seq, width))
        self.blocks = torch.nn.Sequential(*[Block(width, heads, seq, True) for _ in range(layers)])
        self.norm, self.head = torch.nn.LayerNorm(width), torch.nn.Linear(width, vocab)

    def forward(self, ids):
        return self.head(self.norm(self.blocks(self.tokens(ids) + self.positions)))


class BatchFirst(torch.nn.Module):
    """bench/export_recurrent.py's sequence-first stack on [batch, seq, features]."""

    def __init__(self, cell):
        super().__init__()
        self.stack = Stack(cell)

    def forward(self, x):
        return self.stack(x.transpose(0, 1)).transpose(0, 1)


def conv_block(cin, cout):
    return torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 3, padding=1), torch.nn.BatchNorm2d(cout), torch.nn.ReLU(),
                               torch.nn.Conv2d(cout, cout, 3, padding=1), torch.nn.BatchNorm2d(cout), torch.nn.ReLU())


class UNet(torch.nn.Module):
    """Four levels (32-256 channels), max-pool down, transposed-conv up, skips concatenated."""

    def __init__(self, widths=(32, 64, 128, 256), classes=2):
        super().__init__()
        self.down = torch.nn.ModuleList()
        cin = 3
        for w in widths:
            self.down.append(conv_block(cin, w))
            cin = w
        self.up = torch.nn.ModuleList(torch.nn.ConvTranspose2d(w, w // 2, 2, stride=2) for w in widths[:0:-1])
        self.merge = torch.nn.ModuleList(conv_block(w, w // 2) for w in widths[:0:-1])
        self.out = torch.nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        skips = []
        for k, block in enumerate(self.down):
            x = block(x if k == 0 else torch.nn.functional.max_pool2d(x, 2))
            skips.append(x)
        for up, merge, skip in zip(self.up, self.merge, skips[-2::-1]):
            x = merge(torch.cat([up(x), skip], dim=1))
        return self.out(x)


class Generator(torch.nn.Module):
    """Style-transfer shaped: 9x9 conv, two strided convs, residual blocks, upsampling, 9x9 conv to
    3 channels; InstanceNorm on the way down and up, GroupNorm in the residual blocks."""

    def __init__(self, blocks=5):
        super().__init__()

        def conv(cin, cout, k, stride=1, norm="instance"):
            n = torch.nn.InstanceNorm2d(cout, affine=True) if norm == "instance" else torch.nn.GroupNorm(8, cout)
            return [torch.nn.Conv2d(cin, cout, k, stride, k // 2), n]

        self.head = torch.nn.Sequential(*conv(3, 32, 9), torch.nn.ReLU(), *conv(32, 64, 3, 2), torch.nn.ReLU(),
                                        *conv(64, 128, 3, 2), torch.nn.ReLU())
        self.res = torch.nn.ModuleList(torch.nn.Sequential(*conv(128, 128, 3, norm="group"), torch.nn.ReLU(),
                                                           *conv(128, 128, 3, norm="group")) for _ in range(blocks))
        self.tail = torch.nn.Sequential(torch.nn.Upsample(scale_factor=2), *conv(128, 64, 3), torch.nn.ReLU(),
                                        torch.nn.Upsample(scale_factor=2), *conv(64, 32, 3), torch.nn.ReLU(),
                                        torch.nn.Conv2d(32, 3, 9, padding=4), torch.nn.Tanh())

    def forward(self, x):
        x = self.head(x)
        for block in self.res:
            x = x + block(x)
        return self.tail(x)


class EdgeConv(torch.nn.Module):
    """k nearest neighbours (pairwise distances, TopK), their features gathered, a shared MLP
    over [x_i, x_j - x_i], max over the neighbours."""

    def __init__(self, cin, cout, k):
        super().__init__()
        self.k = k
        self.mlp = torch.nn.Sequential(torch.nn.Conv2d(2 * cin, cout, 1, bias=False), torch.nn.BatchNorm2d(cout),
                                       torch.nn.LeakyReLU(0.2))

    def forward(self, x):  # [B, C, N]
        inner = x.transpose(1, 2) @ x
        norms = (x * x).sum(dim=1, keepdim=True)
        idx = (2 * inner - norms - norms.transpose(1, 2)).topk(self.k, dim=-1)[1]  # [B, N, k]
        b, c, n = x.shape
        flat = idx.reshape(b, 1, n * self.k).expand(b, c, n * self.k)
        neighbours = torch.gather(x, 2, flat).reshape(b, c, n, self.k)
        centre = x.unsqueeze(-1).expand(b, c, n, self.k)
        return self.mlp(torch.cat([centre, neighbours - centre], dim=1)).max(dim=-1)[0]


class PointCloud(torch.nn.Module):
    """DGCNN-shaped classifier over [B, 3, 1024] points: three EdgeConvs, a 1x1 conv, global max."""

    def __init__(self, k=16, classes=40):
        super().__init__()
        self.edges = torch.nn.ModuleList([EdgeConv(3, 64, k), EdgeConv(64, 64, k), EdgeConv(64, 128, k)])
        self.conv = torch.nn.Sequential(torch.nn.Conv1d(256, 512, 1, bias=False), torch.nn.BatchNorm1d(512),
                                        torch.nn.LeakyReLU(0.2))
        self.head = torch.nn.Sequential(torch.nn.Linear(512, 256), torch.nn.ReLU(), torch.nn.Linear(256, classes))

    def forward(self, x):
        feats = []
        for edge in self.edges:
            x = edge(x)
            feats.append(x)
        return self.head(self.conv(torch.cat(feats, dim=1)).max(dim=-1)[0])


class OneOutput(torch.nn.Module):
    """A torchvision model with one tensor out: a segmenter's "out", a classifier's logits."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        y = self.model(x)
        if isinstance(y, dict):
            return y["out"]
        return y[0] if isinstance(y, (tuple, list)) else y


# ---------------------------------------------------------------------------------------
# The suite: name -> (constructor, dims without the batch, kind, dtype, high).

def image(size):
    return [3, size, size]


def suite():
    m = {}
    classify = ["alexnet", "googlenet", "inception_v3", "maxvit_t"]
    classify += [f"resnet{d}" for d in (18, 34, 50, 101, 152)]
    classify += ["resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2"]
    classify += ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large"]
    classify += [f"efficientnet_b{k}" for k in range(8)] + ["efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]
    classify += [f"regnet_{t}_{s}" for t in "xy" for s in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")]
    classify += ["regnet_y_128gf"]
    classify += [f"mnasnet{s}" for s in ("0_5", "0_75", "1_0", "1_3")]
    classify += [f"shufflenet_v2_x{s}" for s in ("0_5", "1_0", "1_5", "2_0")]
    classify += ["squeezenet1_0", "squeezenet1_1", "densenet121", "densenet161", "densenet169", "densenet201"]
    classify += [f"vgg{d}{bn}" for d in (11, 13, 16, 19) for bn in ("", "_bn")]
    classify += [f"convnext_{s}" for s in ("tiny", "small", "base", "large")]
    classify += ["vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]
    classify += [f"swin_{s}" for s in ("t", "s", "b")] + [f"swin_v2_{s}" for s in ("t", "s", "b")]
    # Input sizes: 224, inception 299, the EfficientNets at their own resolutions up to 300
    # (b5-b7 and v2 m/l at 300, smaller than their 456-600 and 480).
    sizes = {"inception_v3": 299, "efficientnet_b1": 240, "efficientnet_b2": 260, "efficientnet_b3": 300,
             "efficientnet_b4": 300, "efficientnet_b5": 300, "efficientnet_b6": 300, "efficientnet_b7": 300,
             "efficientnet_v2_s": 300, "efficientnet_v2_m": 300, "efficientnet_v2_l": 300}
    # GoogLeNet's and Inception's own init (truncated normal, std 0.01 / 0.1) shrinks the
    # activations to nothing: their output is the last bias whatever the input. torch's
    # default init keeps the outputs input-dependent, so that the error column means something.
    options = {"googlenet": {"init_weights": False}, "inception_v3": {"init_weights": False}}
    for name in classify:
        m[name] = (lambda n=name: OneOutput(getattr(TV, n)(weights=None, **options.get(n, {}))),
                   image(sizes.get(name, 224)), "classification", "f32", 0)
    # Segmenters at 224x224 (their reference 520 is 4-5x the work).
    for name in ("fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
                 "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"):
        m[name] = (lambda n=name: OneOutput(getattr(TV.segmentation, n)(weights=None, weights_backbone=None)),
                   image(224), "segmentation", "f32", 0)
    # Video at 8 frames of 112x112 (their reference is 16 frames).
    for name in ("r3d_18", "mc3_18", "r2plus1d_18"):
        m[name] = (lambda n=name: getattr(TV.video, n)(weights=None), [3, 8, 112, 112], "video", "f32", 0)
    for width, heads in ((256, 4), (512, 8)):
        m[f"transformer_encoder_{width}"] = (lambda w=width, h=heads: Encoder(w, h, 4, 128), [128, width],
                                             "transformer", "f32", 0)
        m[f"transformer_decoder_{width}"] = (lambda w=width, h=heads: Decoder(w, h, 4, 128, 8000), [128],
                                             "transformer", "i64", 8000)
    m["lstm2_bi"] = (lambda: BatchFirst(torch.nn.LSTM), [64, 256], "recurrent", "f32", 0)
    m["gru2_bi"] = (lambda: BatchFirst(torch.nn.GRU), [64, 256], "recurrent", "f32", 0)
    m["unet_small"] = (UNet, image(256), "unet", "f32", 0)
    m["norm_generator"] = (Generator, image(256), "generator", "f32", 0)
    m["pointcloud_knn"] = (PointCloud, [3, 1024], "pointcloud", "f32", 0)
    return m


# Weights past 2 GiB do not fit one ONNX file (protobuf's limit): not attempted.
SKIPPED = {"regnet_y_128gf": "weights over 2 GiB (one ONNX file's protobuf limit)",
           "vit_h_14": "weights over 2 GiB (one ONNX file's protobuf limit)"}


def export(name, make, dims, dtype, high, path):
    """The opset the file was written with; raises what the exporter raised at 17."""
    torch.manual_seed(0)
    model = make().eval()
    with torch.no_grad():  # weights initialised to 0 (ViT's head) would make every output 0
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0, 0.02)
    x = torch.randint(0, high, [1] + dims) if dtype == "i64" else torch.randn([1] + dims)
    last = None
    for opset in (13, 17):
        try:
            # With gradients on: under no_grad torch 1.13 runs nn.MultiheadAttention (ViT) as one
            # fused op the exporter does not know.
            torch.onnx.export(model, x, path + ".part", opset_version=opset, input_names=["input"],
                              output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
            os.replace(path + ".part", path)
            return opset
        except Exception as e:  # noqa: BLE001  (any exporter failure is the model's row)
            last = e
            if os.path.exists(path + ".part"):
                os.remove(path + ".part")
    raise last


def read_manifest(path):
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines()[1:]:
                cells = line.split("\t")
                if len(cells) == len(COLUMNS):
                    rows[cells[0]] = dict(zip(COLUMNS, cells))
    return rows


def write_manifest(path, rows, order):
    with open(path + ".part", "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for name in sorted(rows, key=lambda n: order.index(n) if n in order else len(order)):
            f.write("\t".join(str(rows[name][c]) for c in COLUMNS) + "\n")
    os.replace(path + ".part", path)


def first_line(e):
    text = (str(e) or type(e).__name__).strip().splitlines()
    return (type(e).__name__ + ": " + (text[0] if text else "")).replace("\t", " ")[:300]


def main():
    warnings.filterwarnings("ignore")  # the exporter's tracer warnings are many and say nothing here
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    models = suite()
    if "--list" in sys.argv:
        print("\n".join(models))
        return
    if not args:
        sys.exit(__doc__)
    out, names = args[0], args[1:] or list(models)
    unknown = [n for n in names if n not in models]
    if unknown:
        sys.exit(f"export_suite: unknown model(s) {', '.join(unknown)}; --list prints the names")
    os.makedirs(out, exist_ok=True)
    manifest = os.path.join(out, "manifest.tsv")
    for name in names:
        make, dims, kind, dtype, high = models[name]
        file = f"{name}.onnx"
        rows = read_manifest(manifest)  # afresh: another run may have written rows meanwhile
        old = rows.get(name)
        if old and old["status"] == "ok" and os.path.exists(os.path.join(out, file)):
            continue
        if old and old["status"] != "ok" and "--retry" not in sys.argv:
            continue
        row = dict(name=name, status="ok", file=file, input="input", dtype=dtype, dims=",".join(map(str, dims)),
                   high=high, kind=kind, opset=0, note="-")
        if name in SKIPPED:
            row.update(status="skipped", note=SKIPPED[name])
        else:
            try:
                row["opset"] = export(name, make, dims, dtype, high, os.path.join(out, file))
            except Exception as e:  # noqa: BLE001
                row.update(status="failed", note=first_line(e))
        rows = read_manifest(manifest)
        rows[name] = row
        write_manifest(manifest, rows, list(models))
        print(f"{name}: {row['status']}" + (f" ({row['note']})" if row["status"] != "ok" else f", opset {row['opset']}"),
              flush=True)


if __name__ == "__main__":
    main()
