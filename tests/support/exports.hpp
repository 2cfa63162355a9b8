#pragma once
// Test support: the torch exports of ../shared/models/export_models.py (ResNet-50,
// MobileNetV2, a BERT-style encoder: dynamic batch, opset 13) with torch's reference pairs.
//
// They come from GE_EXPORTS_DIR when set, else the script runs once per test program into
// a temporary folder (Debian's python3-torch and python3-torchvision; about 10 s). Without
// them `torch_exports()` is nullopt, with the reason given once as a doctest MESSAGE.

#include <filesystem>
#include <optional>

namespace ge::test {

[[nodiscard]] std::optional<std::filesystem::path> torch_exports();

}  // namespace ge::test
