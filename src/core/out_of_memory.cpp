// Allocation failure at the public entries as Errc::out_of_memory
// (include/ge/core/detail/out_of_memory.hpp).
#include "ge/core/detail/out_of_memory.hpp"

#include "ge/core/error.hpp"

namespace ge::detail {

void raise_out_of_memory(const char* what, const std::string* detail) {
  std::string message;
  try {
    message = std::string(what) + (detail != nullptr && !detail->empty() ? " " + *detail : std::string()) +
              ": no memory left (an allocation failed; the process's memory or address-space limit is reached)";
  } catch (...) {
    message.clear();
  }
  if (message.empty()) raise(Errc::out_of_memory, what);  // the short form: the long one could not be made
  raise(Errc::out_of_memory, message);
}

}  // namespace ge::detail
