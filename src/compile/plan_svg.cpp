#include "ge/compile/plan_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/compile/plan.hpp"
#include "ge/core/error.hpp"
#include "ge/core/text.hpp"
#include "ge/graph/dot.hpp"

namespace ge {

namespace {

[[noreturn]] void bad(const std::string& what) { raise(Errc::invalid_argument, "[ge.compile] plan_svg: " + what); }


// Text for XML content and attribute values: the five special characters escaped, tab
// and line breaks as character references, and what XML 1.0 cannot hold (other control
// characters, bytes that are not UTF-8, U+FFFE and U+FFFF) as U+FFFD.
std::string xml(std::string_view s) {
  static constexpr std::string_view replacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  const auto cont = [&](std::size_t i) { return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\n': out += "&#10;"; break;
        case '\r': out += "&#13;"; break;
        case '\t': out += "&#9;"; break;
        default: out += c < 0x20 || c == 0x7F ? replacement : std::string_view(&s[i], 1);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, the second byte's range from both.
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlong forms
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    }
    const unsigned second = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0u;
    bool ok = n > 0 && second >= lo && second <= hi;
    for (std::size_t k = 2; ok && k < n; ++k) ok = cont(i + k);
    if (ok && n == 3 && c == 0xEF && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE)
      ok = false;  // U+FFFE, U+FFFF
    if (!ok) {
      out += replacement;
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// A pixel coordinate: two decimals at most, no trailing zeros.
std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// Bytes for people: `512 B`, `1.5 KiB`, `97.7 MiB`.
std::string human(std::int64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (std::abs(v) >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.4g %s", v, units[u]);
  return buf;
}

std::string with_bytes(std::int64_t bytes) {
  const std::string h = human(bytes);
  return bytes < 1024 ? h : h + " (" + std::to_string(bytes) + " bytes)";
}

// A fixed colour per op type name (a hash into a palette; within one picture, a taken
// colour moves on to the next free one, in name order, so the picture is stable).
constexpr std::string_view palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
                                        "#ff9da7", "#9c755f", "#8cd17d", "#499894", "#86bcb6", "#d37295", "#fabfd2",
                                        "#b6992d", "#a0cbe8", "#ffbe7d", "#d4a6c8", "#6f63c7", "#f1ce63"};

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// A "nice" tick spacing: 1, 2 or 5 times a power of ten, at least `raw`.
std::int64_t nice_step(double raw) {
  std::int64_t p = 1;
  while (true) {
    for (const std::int64_t m : {1, 2, 5})
      if (static_cast<double>(p * m) >= raw) return p * m;
    p *= 10;
  }
}

// Bytes tick spacing: a power of two, at least `raw`.
std::int64_t pow2_step(double raw) {
  std::int64_t p = 1;
  while (static_cast<double>(p) < raw && p < (std::int64_t{1} << 62)) p *= 2;
  return p;
}

struct ArenaValue {
  const PlanValue* v;
  std::int32_t first, last;
  std::string op;      // the producer's op type
  std::string kind;    // the legend's key: the op type, and for a fused op what it fused
  std::string shares;  // the value whose memory it reuses in place, or empty
};

// What a step fused, or empty (`FusedConv`: `Conv+Add+Relu`).
std::string fused_of(const PlanStep& p) {
  const std::size_t z = residual_input(p.op);
  return fused_ops(p.op, p.attrs, z < p.inputs.size() && p.inputs[z] >= 0);
}

// The memory block `block` reuses in place, or -1.
std::int32_t shares_with(const Plan& plan, std::int32_t block) {
  return static_cast<std::size_t>(block) < plan.memory.shares_with.size()
             ? plan.memory.shares_with[static_cast<std::size_t>(block)]
             : -1;
}

// The arena values of a plan, checked against it, and how many values live elsewhere.
struct Arena {
  std::vector<ArenaValue> values;
  std::size_t elsewhere = 0;  // inputs, outputs, constants, dynamic values
};

Arena arena_values(const Plan& plan) {
  const auto steps = static_cast<std::int32_t>(plan.steps.size());
  const std::int64_t arena = plan.memory.arena_bytes;
  Arena out;
  std::vector<const PlanValue*> of_block(plan.lifetimes.size(), nullptr);
  for (const PlanValue& v : plan.values) {
    if (v.storage != Storage::arena) {
      ++out.elsewhere;
      continue;
    }
    const std::string which = "arena value " + quoted(v.name);
    if (v.block < 0 || static_cast<std::size_t>(v.block) >= plan.lifetimes.size())
      bad(which + " has block " + std::to_string(v.block) + "; expected 0 to " +
          std::to_string(static_cast<std::int64_t>(plan.lifetimes.size()) - 1) + " (an entry of the plan's lifetimes)");
    if (of_block[static_cast<std::size_t>(v.block)] != nullptr)
      bad(which + " has block " + std::to_string(v.block) + ", which " +
          quoted(of_block[static_cast<std::size_t>(v.block)]->name) + " has too; expected one block per arena value");
    of_block[static_cast<std::size_t>(v.block)] = &v;
    const Lifetime& lt = plan.lifetimes[static_cast<std::size_t>(v.block)];
    if (lt.first < 0 || lt.last < lt.first || lt.last >= steps)
      bad(which + " lives from step " + std::to_string(lt.first) + " to " + std::to_string(lt.last) +
          "; expected 0 <= first <= last < " + std::to_string(steps) + " (the plan's steps)");
    if (v.bytes < 0 || v.offset < 0 || v.offset > arena || v.bytes > arena - v.offset)
      bad(which + " has " + std::to_string(v.bytes) + " bytes at offset " + std::to_string(v.offset) +
          "; expected them inside the arena of " + std::to_string(arena) + " bytes");
    if (v.producer < -1 || v.producer >= steps)
      bad(which + " is made by step " + std::to_string(v.producer) + "; expected -1 or a step below " +
          std::to_string(steps));
    ArenaValue a{&v, lt.first, lt.last, "(none)", "(none)", {}};
    if (v.producer >= 0) {
      const PlanStep& p = plan.steps[static_cast<std::size_t>(v.producer)];
      const std::string fused = fused_of(p);
      a.op = p.op;
      a.kind = fused.empty() ? p.op : p.op + ": " + fused;
    }
    out.values.push_back(std::move(a));
  }
  for (ArenaValue& a : out.values) {
    const std::int32_t s = shares_with(plan, a.v->block);
    if (s >= 0 && static_cast<std::size_t>(s) < of_block.size() && of_block[static_cast<std::size_t>(s)] != nullptr)
      a.shares = of_block[static_cast<std::size_t>(s)]->name;
  }
  return out;
}

// Bytes live at each step, as the planner counts them (aligned sizes, a value that
// reuses another's memory in place counted from the step after its donor's last), and
// the figures of the heading.
struct Usage {
  std::vector<std::int64_t> live;  // per step
  std::int64_t peak = 0, lower = 0, no_reuse = 0;
};

Usage usage(const Plan& plan, const std::vector<ArenaValue>& values, std::int64_t alignment) {
  const auto steps = static_cast<std::int32_t>(plan.steps.size());
  Usage u;
  u.live.assign(static_cast<std::size_t>(std::max(steps, 1)), 0);
  std::int64_t aligned_total = 0;
  for (const ArenaValue& a : values) {
    std::int32_t root = a.v->block;
    for (std::size_t guard = 0; shares_with(plan, root) >= 0 && guard < plan.lifetimes.size(); ++guard)
      root = shares_with(plan, root);
    const std::int64_t bytes =
        (plan.lifetimes[static_cast<std::size_t>(root)].bytes + alignment - 1) / alignment * alignment;
    aligned_total += (a.v->bytes + alignment - 1) / alignment * alignment;
    for (std::int32_t s = a.first + (a.shares.empty() ? 0 : 1); s <= a.last; ++s)
      u.live[static_cast<std::size_t>(s)] += bytes;
  }
  u.peak = *std::max_element(u.live.begin(), u.live.end());
  u.lower = plan.memory.lower_bound > 0 ? plan.memory.lower_bound : u.peak;
  u.no_reuse = plan.memory.no_reuse_bytes > 0 ? plan.memory.no_reuse_bytes : aligned_total;
  return u;
}

// The legend: op types (fused ones with what they fused) in name order, each with its
// values, bytes, colour and entry text `op (values, bytes)`.
struct Legend {
  std::map<std::string, std::pair<std::size_t, std::int64_t>> by_op;  // kind -> (values, bytes)
  std::map<std::string, std::string_view> colour;                     // kind -> fill
  std::vector<std::string> entries;                                   // in by_op's order
  std::size_t longest = 0;                                            // the longest entry or heading
};

Legend legend(const std::vector<ArenaValue>& values) {
  Legend l;
  for (const ArenaValue& a : values) {
    auto& e = l.by_op[a.kind];
    ++e.first;
    e.second += a.v->bytes;
  }
  std::vector<bool> taken(std::size(palette), false);
  for (const auto& [op, e] : l.by_op) {
    std::size_t c = fnv1a(op) % std::size(palette);
    for (std::size_t k = 0; k < std::size(palette) && taken[c]; ++k) c = (c + 1) % std::size(palette);
    if (std::count(taken.begin(), taken.end(), false) > 0) taken[c] = true;
    l.colour[op] = palette[c];
  }
  l.longest = std::string_view("producer op (values, bytes)").size();
  for (const auto& [op, e] : l.by_op) {
    l.entries.push_back(op + " (" + std::to_string(e.first) + ", " + human(e.second) + ")");
    l.longest = std::max(l.longest, l.entries.back().size());
  }
  return l;
}

// The picture's geometry: the plot (steps across, arena offsets up) and the legend on
// its right, whose width fits the longest entry (11px text, some 6.4px a character).
struct Frame {
  static constexpr int left = 84, top = 76, bottom = 46, gap = 16;
  double n = 1;  // steps, at least one
  double legend_w = 0, plot_w = 0, plot_h = 0, width = 0, height = 0, step_w = 0, ymax = 0, y_scale = 0;

  Frame(const PlanSvgOptions& o, std::int32_t steps, const Legend& l, std::int64_t arena, const Usage& u) {
    legend_w = std::clamp(static_cast<double>(l.longest) * 6.4 + 26, 200.0, 460.0);
    n = std::max(steps, 1);
    plot_w = o.width > 0 ? std::max(o.width - left - gap - legend_w, 200.0) : std::clamp(n * 14.0, 480.0, 1400.0);
    plot_h = o.height > 0 ? o.height : 520;
    const double legend_h = 20.0 * static_cast<double>(l.by_op.size() + 3);
    width = left + plot_w + gap + legend_w;
    height = top + std::max(plot_h, legend_h) + bottom;
    step_w = plot_w / n;
    ymax = static_cast<double>(std::max({arena, u.lower, u.peak, std::int64_t{1}}));
    y_scale = plot_h / ymax;
  }
  double x_of(double step) const { return left + step * step_w; }
  double y_of(double offset) const { return top + plot_h - offset * y_scale; }
};

// The document's start: the root element with the figures as data attributes, the
// title, the style, the background and the heading's three lines.
void svg_heading(std::string& out, const Plan& plan, const PlanSvgOptions& o, const Frame& f, const Arena& a,
                 const Usage& u) {
  const auto steps = static_cast<std::int32_t>(plan.steps.size());
  const std::int64_t arena = plan.memory.arena_bytes;
  const std::int64_t alignment = std::max<std::int64_t>(plan.memory.alignment, 1);
  const int left = Frame::left;
  std::string title = o.title;
  if (title.empty()) title = plan.gear >= 0 ? "memory plan, gear " + std::to_string(plan.gear) : "memory plan";
  char ratio[32] = "-";
  if (u.lower > 0) std::snprintf(ratio, sizeof ratio, "%.3f", static_cast<double>(arena) / static_cast<double>(u.lower));
  const std::string figures = "arena " + with_bytes(arena) + ", no reuse " + with_bytes(u.no_reuse) +
                              ", lower bound " + with_bytes(u.lower) + ", arena / lower bound " + ratio;
  const std::string details = std::to_string(steps) + " steps, " + std::to_string(a.values.size()) +
                              " values in the arena, " + std::to_string(a.elsewhere) +
                              " elsewhere (inputs, outputs, constants, dynamic); strategy " +
                              std::string(to_string(plan.memory.strategy)) + ", alignment " + std::to_string(alignment);
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(f.width) + "\" height=\"" + px(f.height) +
         "\" viewBox=\"0 0 " + px(f.width) + " " + px(f.height) + "\" font-family=\"Helvetica, Arial, sans-serif\"" +
         " data-arena-bytes=\"" + std::to_string(arena) + "\" data-no-reuse-bytes=\"" + std::to_string(u.no_reuse) +
         "\" data-lower-bound=\"" + std::to_string(u.lower) + "\" data-steps=\"" + std::to_string(steps) + "\">\n";
  out += "<title>" + xml(title + ": " + figures) + "</title>\n";
  out +=
      "<style>rect.value{stroke:#000;stroke-opacity:.3;stroke-width:.5}"
      "rect.value:hover{stroke-opacity:1;stroke-width:1.5}text{fill:#111827}"
      ".tick{font-size:10px;fill:#4b5563}.grid{stroke:#e5e7eb;stroke-width:1}</style>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  out += "<text class=\"heading\" x=\"" + px(left) + "\" y=\"22\" font-size=\"16\" font-weight=\"bold\">" + xml(title) +
         "</text>\n";
  out += "<text class=\"figures\" x=\"" + px(left) + "\" y=\"42\" font-size=\"12\">" + xml(figures) + "</text>\n";
  out += "<text class=\"details\" x=\"" + px(left) + "\" y=\"58\" font-size=\"11\" fill=\"#4b5563\">" + xml(details) +
         "</text>\n";
}

// Axes and grid: x every few steps, y at power-of-two byte offsets.
void svg_axes(std::string& out, const Frame& f, std::int32_t steps) {
  const int left = Frame::left, top = Frame::top;
  const double plot_w = f.plot_w, plot_h = f.plot_h;
  out += "<g class=\"axes\">\n";
  const std::int64_t x_step = nice_step(f.n / std::max(2.0, plot_w / 70.0));
  for (std::int64_t s = 0; s <= steps; s += x_step) {
    const double x = f.x_of(static_cast<double>(s));
    out += "<line class=\"grid\" x1=\"" + px(x) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x) + "\" y2=\"" +
           px(top + plot_h) + "\"/><text class=\"tick\" x=\"" + px(x) + "\" y=\"" + px(top + plot_h + 14) +
           "\" text-anchor=\"middle\">" + std::to_string(s) + "</text>\n";
  }
  const std::int64_t y_step = pow2_step(f.ymax / std::max(2.0, plot_h / 48.0));
  for (std::int64_t b = 0; static_cast<double>(b) <= f.ymax; b += y_step) {
    const double y = f.y_of(static_cast<double>(b));
    out += "<line class=\"grid\" x1=\"" + px(left) + "\" y1=\"" + px(y) + "\" x2=\"" + px(left + plot_w) + "\" y2=\"" +
           px(y) + "\"/><text class=\"tick\" x=\"" + px(left - 6) + "\" y=\"" + px(y + 3) + "\" text-anchor=\"end\">" +
           human(b) + "</text>\n";
    if (b > (std::int64_t{1} << 62) - y_step) break;
  }
  out += "<rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" + px(plot_w) + "\" height=\"" + px(plot_h) +
         "\" fill=\"none\" stroke=\"#9ca3af\"/>\n";
  out += "<text x=\"" + px(left + plot_w / 2) + "\" y=\"" + px(top + plot_h + 32) +
         "\" font-size=\"11\" text-anchor=\"middle\">execution step</text>\n";
  out += "<text x=\"14\" y=\"" + px(top + plot_h / 2) +
         "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + px(top + plot_h / 2) +
         ")\">arena offset</text>\n";
  out += "</g>\n";
}

// The values: a rectangle each (its steps across, its bytes up) with a hover text.
void svg_values(std::string& out, const Plan& plan, const Frame& f, const std::vector<ArenaValue>& values,
                const Legend& l) {
  out += "<g class=\"values\">\n";
  for (const ArenaValue& a : values) {
    const PlanValue& v = *a.v;
    const double x = f.x_of(a.first);
    const double w = std::max(1.0, (a.last - a.first + 1) * f.step_w);
    const double h = std::max(1.0, static_cast<double>(v.bytes) * f.y_scale);
    const double y = f.y_of(static_cast<double>(v.offset)) - h;
    std::string hover = v.name + "\n" + to_string(v.desc) + ", " + with_bytes(v.bytes) + "\noffset " +
                        std::to_string(v.offset) + " to " + std::to_string(v.offset + v.bytes) + "\nsteps " +
                        std::to_string(a.first) + " to " + std::to_string(a.last);
    const std::int32_t read_until = v.readers.empty() ? v.producer : v.readers.back();
    if (read_until >= 0 && read_until < a.last)
      hover += " (read until step " + std::to_string(read_until) + ", kept live for the streams)";
    if (v.producer >= 0) {
      const PlanStep& p = plan.steps[static_cast<std::size_t>(v.producer)];
      hover += "\nmade by step " + std::to_string(v.producer) + " " + quoted(p.name) + " (" + a.kind + ")";
    }
    if (!a.shares.empty()) hover += "\nreuses the memory of " + quoted(a.shares) + " in place";
    out += "<rect class=\"value\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" + px(h) +
           "\" fill=\"" + std::string(l.colour.at(a.kind)) + "\" data-value=\"" + xml(v.name) + "\" data-op=\"" +
           xml(a.op) + "\" data-kind=\"" + xml(a.kind) + "\" data-offset=\"" + std::to_string(v.offset) +
           "\" data-bytes=\"" + std::to_string(v.bytes) + "\" data-first=\"" + std::to_string(a.first) +
           "\" data-last=\"" + std::to_string(a.last) + "\"" +
           (a.shares.empty() ? "" : " data-shares=\"" + xml(a.shares) + "\"") + "><title>" + xml(hover) +
           "</title></rect>\n";
  }
  out += "</g>\n";
}

// Live bytes per step (a step line), the arena's top, the lower bound.
void svg_lines(std::string& out, const Frame& f, const Usage& u, std::int64_t arena) {
  const int left = Frame::left;
  const double plot_w = f.plot_w;
  out +=
      "<polyline class=\"live\" fill=\"none\" stroke=\"#111827\" stroke-width=\"1\" stroke-opacity=\"0.6\" "
      "data-peak=\"" +
      std::to_string(u.peak) + "\" points=\"";
  for (std::size_t s = 0; s < u.live.size(); ++s) {
    const double y = f.y_of(static_cast<double>(u.live[s]));
    out += (s ? " " : "") + px(f.x_of(static_cast<double>(s))) + "," + px(y) + " " +
           px(f.x_of(static_cast<double>(s + 1))) + "," + px(y);
  }
  out += "\"><title>bytes live at each step (aligned); the peak is the lower bound</title></polyline>\n";
  const double y_arena = f.y_of(static_cast<double>(arena));
  out += "<line class=\"arena\" x1=\"" + px(left) + "\" y1=\"" + px(y_arena) + "\" x2=\"" + px(left + plot_w) +
         "\" y2=\"" + px(y_arena) + "\" stroke=\"#1f2937\" stroke-width=\"1.5\"/>\n";
  out += "<text x=\"" + px(left + 4) + "\" y=\"" + px(y_arena - 4) + "\" font-size=\"11\">arena " + xml(human(arena)) +
         "</text>\n";
  const double y_lower = f.y_of(static_cast<double>(u.lower));
  out += "<line class=\"lower-bound\" x1=\"" + px(left) + "\" y1=\"" + px(y_lower) + "\" x2=\"" + px(left + plot_w) +
         "\" y2=\"" + px(y_lower) +
         "\" stroke=\"#dc2626\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" data-bytes=\"" + std::to_string(u.lower) +
         "\"><title>lower bound: " + xml(with_bytes(u.lower)) + "</title></line>\n";
  out += "<text x=\"" + px(left + plot_w - 4) + "\" y=\"" + px(y_lower + 14) +
         "\" font-size=\"11\" text-anchor=\"end\" fill=\"#dc2626\">lower bound " + xml(human(u.lower)) + "</text>\n";
}

// Where the arena exceeds the bound: the step at which the values reach the arena's top
// with the most bytes unused below it (the gaps the placement could not fill there).
void svg_excess(std::string& out, const Frame& f, const Usage& u, const std::vector<ArenaValue>& values,
                std::int64_t arena, std::int64_t alignment) {
  const std::vector<std::int64_t>& live = u.live;
  const double y_arena = f.y_of(static_cast<double>(arena));
  std::vector<std::int64_t> extent(live.size(), 0);
  for (const ArenaValue& a : values)
    for (std::int32_t s = a.first; s <= a.last; ++s)
      extent[static_cast<std::size_t>(s)] =
          std::max(extent[static_cast<std::size_t>(s)], a.v->offset + (a.v->bytes + alignment - 1) / alignment * alignment);
  const std::int64_t top_reached = *std::max_element(extent.begin(), extent.end());
  std::size_t at = 0;
  for (std::size_t s = 0; s < extent.size(); ++s)
    if (extent[s] == top_reached && (extent[at] != top_reached || live[s] < live[at])) at = s;
  const std::string what = "the arena exceeds the lower bound by " + with_bytes(arena - u.lower) + ": at step " +
                           std::to_string(at) + " values reach " + with_bytes(top_reached) + " while " +
                           with_bytes(live[at]) + " are live (gaps below them)";
  out += "<rect class=\"excess\" x=\"" + px(f.x_of(static_cast<double>(at))) + "\" y=\"" + px(y_arena) + "\" width=\"" +
         px(std::max(f.step_w, 2.0)) + "\" height=\"" + px(f.y_of(static_cast<double>(live[at])) - y_arena) +
         "\" fill=\"#f59e0b\" fill-opacity=\"0.45\" stroke=\"#b45309\" data-step=\"" + std::to_string(at) +
         "\" data-excess-bytes=\"" + std::to_string(arena - u.lower) + "\" data-live-bytes=\"" +
         std::to_string(live[at]) + "\"><title>" + xml(what) + "</title></rect>\n";
  out += "<text x=\"" + px(f.x_of(static_cast<double>(at)) + 4) + "\" y=\"" + px(y_arena + 14) +
         "\" font-size=\"11\" fill=\"#b45309\">gaps at step " + std::to_string(at) + "</text>\n";
}

// The legend: a swatch per op type, then the two lines' keys.
void svg_legend(std::string& out, const Frame& f, const Legend& l) {
  const double lx = Frame::left + f.plot_w + Frame::gap;
  double ly = Frame::top;
  out += "<g class=\"legend\" font-size=\"11\">\n";
  out +=
      "<text x=\"" + px(lx) + "\" y=\"" + px(ly + 10) + "\" font-weight=\"bold\">producer op (values, bytes)</text>\n";
  ly += 20;
  std::size_t entry = 0;
  for (const auto& [op, e] : l.by_op) {
    out += "<rect class=\"swatch\" x=\"" + px(lx) + "\" y=\"" + px(ly) + "\" width=\"12\" height=\"12\" fill=\"" +
           std::string(l.colour.at(op)) + "\" data-kind=\"" + xml(op) + "\"/><text x=\"" + px(lx + 18) + "\" y=\"" +
           px(ly + 10) + "\">" + xml(l.entries[entry++]) + "</text>\n";
    ly += 20;
  }
  out += "<line x1=\"" + px(lx) + "\" y1=\"" + px(ly + 6) + "\" x2=\"" + px(lx + 12) + "\" y2=\"" + px(ly + 6) +
         "\" stroke=\"#dc2626\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"/><text x=\"" + px(lx + 18) + "\" y=\"" +
         px(ly + 10) + "\">lower bound</text>\n";
  ly += 20;
  out += "<line x1=\"" + px(lx) + "\" y1=\"" + px(ly + 6) + "\" x2=\"" + px(lx + 12) + "\" y2=\"" + px(ly + 6) +
         "\" stroke=\"#111827\" stroke-opacity=\"0.6\"/><text x=\"" + px(lx + 18) + "\" y=\"" + px(ly + 10) +
         "\">bytes live per step</text>\n";
  out += "</g>\n";
}

}  // namespace

std::string plan_svg(const Plan& plan, const PlanSvgOptions& o) {
  constexpr int max_px = 16384;
  if (o.width != 0 && (o.width < 480 || o.width > max_px))
    bad("width " + std::to_string(o.width) + "; expected 0 (automatic) or 480 to 16384 pixels");
  if (o.height != 0 && (o.height < 120 || o.height > max_px))
    bad("height " + std::to_string(o.height) + "; expected 0 (automatic) or 120 to 16384 pixels");
  const auto steps = static_cast<std::int32_t>(plan.steps.size());
  const std::int64_t arena = plan.memory.arena_bytes;
  const std::int64_t alignment = std::max<std::int64_t>(plan.memory.alignment, 1);
  const Arena a = arena_values(plan);
  const Usage u = usage(plan, a.values, alignment);
  const Legend l = legend(a.values);
  const Frame f(o, steps, l, arena, u);

  std::string out;
  out.reserve(4096 + a.values.size() * 420 + u.live.size() * 24);
  svg_heading(out, plan, o, f, a, u);
  svg_axes(out, f, steps);
  svg_values(out, plan, f, a.values, l);
  svg_lines(out, f, u, arena);
  if (arena > u.lower && !a.values.empty()) svg_excess(out, f, u, a.values, arena, alignment);
  svg_legend(out, f, l);
  if (a.values.empty())
    out += "<text x=\"" + px(Frame::left + f.plot_w / 2) + "\" y=\"" + px(Frame::top + f.plot_h / 2) +
           "\" font-size=\"13\" text-anchor=\"middle\" fill=\"#6b7280\">no values in the arena</text>\n";
  out += "</svg>\n";
  return out;
}

}  // namespace ge
