// Writes the model file examples/acl/model_gears.c loads: ResNet-50 (built in code,
// random weights) compiled with batch gears 1, 2, 4 and 8 and saved with ge::save, as an
// application's build step would with aclgrphBuildModel + aclgrphSaveModel.
//   ge_example_acl_save_resnet50 resnet50.gem
#include <cstdio>
#include <exception>

#include "ge/compile/model_file.hpp"
#include "models/resnet50.hpp"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "resnet50.gem";
  try {
    const ge::Graph g = ge::models::resnet50("-1,3,224,224");
    ge::save(*ge::compile(g, ge::batch_gears(g, {1, 2, 4, 8})), path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "save_resnet50: %s\n", e.what());
    return 1;
  }
  std::printf("save_resnet50: wrote %s\n", path);
  return 0;
}
