#include "program.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace axcore::rand {
namespace {

constexpr uint64_t kMaxStream = 4000;     // words per run of a hop (fits every engine's size field)
constexpr uint64_t kL2Half = 2u << 20;    // bytes: the two alternating L2 regions
constexpr uint64_t kL1Half = 512u << 10;  // bytes: the two alternating L1 regions

struct Limits {
  uint32_t dims, bds;
  bool pads;
};
Limits limits(Engine e) {
  switch (e) {
    case Engine::SYS: return {spec::param::sysdma_dims, spec::param::sysdma_bds, spec::param::sysdma_padding != 0};
    case Engine::MEM: return {spec::param::memdma_dims, spec::param::memdma_bds, spec::param::memdma_padding != 0};
    case Engine::CORE: return {spec::param::coredma_dims, spec::param::coredma_bds, spec::param::coredma_padding != 0};
  }
  return {1, 1, false};
}

// What each engine reaches: SysDMA everything (DDR only through the program's x and y), MemDMA L2
// and every L1, CoreDMA L2 and its own core's L1.
bool reaches(const Hop& h, const Place& p, bool is_src) {
  switch (h.engine) {
    case Engine::SYS: return p.mem != spec::MemSel::DDR || p.arg == (is_src ? 0u : 1u);
    case Engine::MEM: return p.mem == spec::MemSel::L2 || p.mem == spec::MemSel::L1;
    case Engine::CORE: return p.mem == spec::MemSel::L2 || (p.mem == spec::MemSel::L1 && p.core == h.core);
  }
  return false;
}

bool same_memory(const Place& a, const Place& b) {
  return a.mem == b.mem && (a.mem != spec::MemSel::L1 || a.core == b.core) &&
         (a.mem != spec::MemSel::DDR || a.arg == b.arg);
}

std::string place_str(const Place& p) {
  switch (p.mem) {
    case spec::MemSel::DDR: return p.arg == 0 ? "ddr:x" : "ddr:y";
    case spec::MemSel::L2: return fmt::format("l2@{:#x}", p.base);
    case spec::MemSel::L1: return fmt::format("l1.{}@{:#x}", p.core, p.base);
    default: return "?";
  }
}

uint64_t prod(const std::vector<uint32_t>& v) {
  return std::accumulate(v.begin(), v.end(), uint64_t{1}, [](uint64_t a, uint32_t b) { return a * std::max(b, 1u); });
}

// Moves the walk into [0, n) words (shrinking its largest dimension while it does not fit).
bool clip_walk(Walk& w, uint64_t n, uint32_t repeat, uint32_t max_dims, bool pads) {
  if (w.sizes.empty()) w.sizes = {1}, w.strides = {1};
  w.strides.resize(w.sizes.size(), 1);
  while (w.sizes.size() > max_dims) w.sizes.pop_back(), w.strides.pop_back();
  if (!pads) w.pad.clear();
  if (!w.pad.empty()) w.pad.resize(w.sizes.size(), {0, 0});
  for (auto& [b, a] : w.pad) b = std::min(b, 255u), a = std::min(a, 255u);
  for (auto& s : w.sizes) s = std::max(s, 1u);
  for (int guard = 0; guard < 200; ++guard) {
    w.offset = 0;
    const int64_t lo = w.min_addr(repeat), hi = w.max_addr(repeat);
    if (hi - lo < static_cast<int64_t>(n) && w.stream_words() <= kMaxStream) {
      w.offset = static_cast<uint64_t>(-lo);
      return true;
    }
    if (repeat > 0 && w.iter_stride != 0) {
      w.iter_stride /= 2;
      continue;
    }
    auto big = std::max_element(w.sizes.begin(), w.sizes.end());
    if (*big <= 1) {
      if (!w.pad.empty()) {
        w.pad.clear();
        continue;
      }
      return false;
    }
    *big = (*big + 1) / 2;
  }
  return false;
}

// A dense box of exactly s words written in a permuted order (d0 strides over d1).
Walk dense_box(uint64_t s, std::mt19937_64* rng) {
  std::vector<uint64_t> divs;
  for (uint64_t a = 1; a <= 64 && a <= s; ++a) {
    if (s % a == 0 && s / a <= 4095) divs.push_back(a);
  }
  const uint64_t a = rng && !divs.empty() ? divs[(*rng)() % divs.size()] : (divs.empty() ? 1 : divs.front());
  Walk w;
  if (a == 1) {
    w.sizes = {static_cast<uint32_t>(s)};
    w.strides = {1};
  } else {
    w.sizes = {static_cast<uint32_t>(a), static_cast<uint32_t>(s / a)};
    w.strides = {static_cast<int32_t>(s / a), 1};
  }
  return w;
}

bool is_dense_box(const Walk& w, uint64_t s) {
  if (!w.pad.empty() || w.offset != 0 || w.words() != s) return false;
  if (w.sizes.size() == 1) return w.strides[0] == 1;
  return w.sizes.size() == 2 && w.strides[0] == static_cast<int32_t>(w.sizes[1]) && w.strides[1] == 1;
}

}  // namespace

const char* to_string(Engine e) {
  switch (e) {
    case Engine::SYS: return "sys";
    case Engine::MEM: return "mem";
    case Engine::CORE: return "core";
  }
  return "?";
}

uint64_t Walk::words() const { return prod(sizes); }

uint64_t Walk::stream_words() const {
  uint64_t n = 1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto [b, a] = k < pad.size() ? pad[k] : std::pair<uint32_t, uint32_t>{0, 0};
    n *= std::max(sizes[k], 1u) + b + a;
  }
  return n;
}

int64_t Walk::min_addr(uint32_t repeat) const {
  int64_t v = static_cast<int64_t>(offset);
  for (std::size_t k = 0; k < sizes.size(); ++k)
    v += std::min<int64_t>(0, int64_t{strides[k]} * (std::max(sizes[k], 1u) - 1));
  return v + std::min<int64_t>(0, int64_t{iter_stride} * repeat);
}

int64_t Walk::max_addr(uint32_t repeat) const {
  int64_t v = static_cast<int64_t>(offset);
  for (std::size_t k = 0; k < sizes.size(); ++k)
    v += std::max<int64_t>(0, int64_t{strides[k]} * (std::max(sizes[k], 1u) - 1));
  return v + std::max<int64_t>(0, int64_t{iter_stride} * repeat);
}

uint64_t Hop::stream_words() const {
  uint64_t s = 0;
  for (const auto& r : reads) s += r.stream_words();
  return s;
}

std::size_t Program::descriptors() const {
  std::size_t n = 0;
  for (const auto& h : hops) n += h.reads.size() + 1;
  return n;
}

bool normalize(Program& p, std::string* why) {
  auto fail = [&](const std::string& m) {
    if (why) *why = m;
    return false;
  };
  if (p.cores < 1 || p.cores > spec::param::max_cores) return fail("cores outside 1..4");
  if (p.hops.empty()) return fail("no hops");
  if (p.x_words < 1 || p.x_words > 65536) return fail("x_words outside 1..65536");
  if (p.hops.front().src.mem != spec::MemSel::DDR || p.hops.front().src.arg != 0)
    return fail("the first hop must read x");
  if (p.hops.back().dst.mem != spec::MemSel::DDR || p.hops.back().dst.arg != 1)
    return fail("the last hop must write y");
  uint64_t n = p.x_words;
  std::vector<uint32_t> next_bd(3, 0);
  for (std::size_t i = 0; i < p.hops.size(); ++i) {
    Hop& h = p.hops[i];
    if (i > 0) h.src = p.hops[i - 1].dst;
    if (h.engine == Engine::CORE && h.core >= p.cores)
      return fail(fmt::format("hop {}: core {} of {}", i, h.core, p.cores));
    for (Place* pl : {&h.src, &h.dst}) {
      if (pl->mem == spec::MemSel::L1 && pl->core >= p.cores)
        return fail(fmt::format("hop {}: L1 of core {}", i, pl->core));
    }
    if (!reaches(h, h.src, true) || !reaches(h, h.dst, false)) {
      return fail(
          fmt::format("hop {}: {} cannot move {} -> {}", i, to_string(h.engine), place_str(h.src), place_str(h.dst)));
    }
    if (i + 1 < p.hops.size() && h.dst.mem == spec::MemSel::DDR) return fail(fmt::format("hop {} writes DDR early", i));
    h.channel %= spec::param::dma_channels;
    h.repeat = std::min(h.repeat, 3u);
    const Limits lim = limits(h.engine);
    if (h.reads.empty()) return fail(fmt::format("hop {}: no reads", i));
    if (h.reads.size() + 1 > lim.bds) h.reads.resize(lim.bds - 1);
    for (auto& r : h.reads) {
      if (!clip_walk(r, n, h.repeat, lim.dims, lim.pads)) return fail(fmt::format("hop {}: a read does not fit", i));
    }
    while (h.stream_words() > kMaxStream && h.reads.size() > 1) h.reads.pop_back();
    const uint64_t s = h.stream_words();
    if (s == 0 || s > kMaxStream) return fail(fmt::format("hop {}: {} words per run", i, s));
    if (!is_dense_box(h.write, s) || h.write.sizes.size() > lim.dims) h.write = dense_box(s, nullptr);
    h.write.iter_stride = static_cast<int32_t>(s);
    // Destination region: the half the source does not use when both are in the same memory.
    if (h.dst.mem == spec::MemSel::L2 || h.dst.mem == spec::MemSel::L1) {
      const uint64_t half = h.dst.mem == spec::MemSel::L2 ? kL2Half : kL1Half;
      h.dst.base = same_memory(h.src, h.dst) && h.src.base == 0 ? half : 0;
      if ((h.repeat + 1) * s * 4 > half) return fail(fmt::format("hop {}: region overflow", i));
    } else {
      h.dst.base = 0;
    }
    const unsigned e = static_cast<unsigned>(h.engine) + (h.engine == Engine::CORE ? h.core : 0);
    auto& nb = next_bd[std::min(e, 2u)];
    h.mm2s_bds.clear();
    for (std::size_t k = 0; k < h.reads.size(); ++k) h.mm2s_bds.push_back(nb++ % lim.bds);
    h.s2mm_bd = nb++ % lim.bds;
    n = (h.repeat + 1) * s;
  }
  p.y_words = n;
  return true;
}

Program generate(uint64_t seed, uint32_t cores) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 1);
  auto pick = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  auto chance = [&](unsigned pct) { return rng() % 100 < pct; };
  for (int attempt = 0;; ++attempt) {
    Program p;
    p.seed = seed;
    p.cores = cores;
    p.x_words = chance(20) ? pick(1, 40) : pick(40, 3000);
    const unsigned nhops = static_cast<unsigned>(pick(2, 5));
    Place cur{spec::MemSel::DDR, 0, 0, 0};
    for (unsigned i = 0; i < nhops; ++i) {
      Hop h;
      const bool last = i + 1 == nhops;
      if (i == 0 || last) {
        h.engine = Engine::SYS;
      } else {
        h.engine = static_cast<Engine>(pick(0, 2));
      }
      h.core = static_cast<uint32_t>(pick(0, cores - 1));
      if (h.engine == Engine::CORE && cur.mem == spec::MemSel::L1) h.core = cur.core;
      h.src = cur;
      if (last) {
        h.dst = {spec::MemSel::DDR, 0, 1, 0};
      } else {
        // A memory the engine reaches other than the source's.
        for (int t = 0; t < 20; ++t) {
          Place d{chance(50) ? spec::MemSel::L2 : spec::MemSel::L1, static_cast<uint32_t>(pick(0, cores - 1)), 0, 0};
          if (h.engine == Engine::CORE && d.mem == spec::MemSel::L1) d.core = h.core;
          h.dst = d;
          if (!same_memory(d, cur) && reaches(h, d, false)) break;
        }
      }
      h.channel = static_cast<uint32_t>(pick(0, spec::param::dma_channels - 1));
      h.repeat = chance(30) ? static_cast<uint32_t>(pick(1, 2)) : 0;
      h.pad_value = static_cast<uint32_t>(rng());
      const Limits lim = limits(h.engine);
      const unsigned nreads = chance(30) ? static_cast<unsigned>(pick(2, 3)) : 1;
      for (unsigned r = 0; r < nreads; ++r) {
        Walk w;
        const unsigned dims = static_cast<unsigned>(pick(1, lim.dims));
        for (unsigned k = 0; k < dims; ++k) {
          w.sizes.push_back(static_cast<uint32_t>(k == 0 ? pick(1, chance(30) ? 5 : 48) : pick(1, 12)));
          int32_t st;
          if (k == 0) {
            const int32_t choices[] = {1, 1, 1, 1, 2, 3, 0, -1};
            st = choices[rng() % 8];
          } else {
            st = static_cast<int32_t>(pick(0, 400)) - (chance(20) ? 200 : 0);
          }
          w.strides.push_back(st);
        }
        if (lim.pads && chance(40)) {
          for (unsigned k = 0; k < dims; ++k) {
            w.pad.emplace_back(static_cast<uint32_t>(pick(0, k == 0 ? 3 : 1)),
                               static_cast<uint32_t>(pick(0, k == 0 ? 3 : 1)));
          }
        }
        if (h.repeat > 0 && chance(50)) w.iter_stride = static_cast<int32_t>(pick(0, 64));
        h.reads.push_back(std::move(w));
      }
      cur = h.dst;
      p.hops.push_back(std::move(h));
    }
    // The S2MM boxes need the stream size: normalize once, then permute the boxes and fix again.
    if (!normalize(p)) continue;
    for (auto& h : p.hops) h.write = dense_box(h.stream_words(), &rng);
    if (normalize(p) || attempt > 100) return p;
  }
}

nlohmann::json to_json(const Program& p) {
  using nlohmann::json;
  auto place = [](const Place& pl) {
    return json{{"mem", std::string(spec::to_string(pl.mem))}, {"core", pl.core}, {"arg", pl.arg}, {"base", pl.base}};
  };
  auto walk = [](const Walk& w) {
    json j{{"offset", w.offset}, {"sizes", w.sizes}, {"strides", w.strides}, {"iter_stride", w.iter_stride}};
    if (!w.pad.empty()) j["pad"] = w.pad;
    return j;
  };
  json hops = json::array();
  for (const auto& h : p.hops) {
    json reads = json::array();
    for (const auto& r : h.reads) reads.push_back(walk(r));
    hops.push_back({{"engine", to_string(h.engine)},
                    {"core", h.core},
                    {"channel", h.channel},
                    {"src", place(h.src)},
                    {"dst", place(h.dst)},
                    {"reads", reads},
                    {"write", walk(h.write)},
                    {"repeat", h.repeat},
                    {"pad_value", h.pad_value}});
  }
  return {{"generator", "axrand dma v1"}, {"seed", p.seed}, {"cores", p.cores}, {"x_words", p.x_words}, {"hops", hops}};
}

Program program_from_json(const nlohmann::json& j) {
  try {
    Program p;
    p.seed = j.at("seed").get<uint64_t>();
    p.cores = j.at("cores").get<uint32_t>();
    p.x_words = j.at("x_words").get<uint64_t>();
    auto place = [](const nlohmann::json& q) {
      Place pl;
      const auto m = q.at("mem").get<std::string>();
      if (m == "DDR")
        pl.mem = spec::MemSel::DDR;
      else if (m == "L2")
        pl.mem = spec::MemSel::L2;
      else if (m == "L1")
        pl.mem = spec::MemSel::L1;
      else
        throw std::runtime_error("mem '" + m + "' is not DDR, L2 or L1");
      pl.core = q.at("core").get<uint32_t>();
      pl.arg = q.at("arg").get<uint32_t>();
      pl.base = q.at("base").get<uint64_t>();
      return pl;
    };
    auto walk = [](const nlohmann::json& q) {
      Walk w;
      w.offset = q.at("offset").get<uint64_t>();
      w.sizes = q.at("sizes").get<std::vector<uint32_t>>();
      w.strides = q.at("strides").get<std::vector<int32_t>>();
      w.iter_stride = q.at("iter_stride").get<int32_t>();
      if (q.contains("pad")) w.pad = q["pad"].get<std::vector<std::pair<uint32_t, uint32_t>>>();
      if (w.sizes.size() != w.strides.size() || w.sizes.empty())
        throw std::runtime_error("sizes and strides differ in rank");
      return w;
    };
    for (const auto& q : j.at("hops")) {
      Hop h;
      const auto e = q.at("engine").get<std::string>();
      if (e == "sys")
        h.engine = Engine::SYS;
      else if (e == "mem")
        h.engine = Engine::MEM;
      else if (e == "core")
        h.engine = Engine::CORE;
      else
        throw std::runtime_error("engine '" + e + "' is not sys, mem or core");
      h.core = q.at("core").get<uint32_t>();
      h.channel = q.at("channel").get<uint32_t>();
      h.src = place(q.at("src"));
      h.dst = place(q.at("dst"));
      for (const auto& r : q.at("reads")) h.reads.push_back(walk(r));
      h.write = walk(q.at("write"));
      h.repeat = q.at("repeat").get<uint32_t>();
      h.pad_value = q.at("pad_value").get<uint32_t>();
      p.hops.push_back(std::move(h));
    }
    std::string why;
    if (!normalize(p, &why)) throw std::runtime_error("not a legal program: " + why);
    return p;
  } catch (const nlohmann::json::exception& e) { throw std::runtime_error(std::string("program JSON: ") + e.what()); }
}

std::vector<std::string> coverage_points(const Program& p) {
  std::set<std::string> c;
  c.insert(fmt::format("cores.{}", p.cores));
  c.insert(fmt::format("hops.{}", p.hops.size()));
  for (const auto& h : p.hops) {
    c.insert(fmt::format("engine.{}", to_string(h.engine)));
    c.insert(fmt::format("channel.{}", h.channel));
    c.insert(fmt::format("repeat.{}", h.repeat));
    c.insert(fmt::format("chain.{}", h.reads.size()));
    if (h.write.sizes.size() > 1) c.insert("write.permuted");
    for (const Place* pl : {&h.src, &h.dst}) {
      if (pl->mem == spec::MemSel::L1) c.insert(fmt::format("l1.core{}", pl->core));
      if (pl->mem == spec::MemSel::L2) c.insert("l2");
    }
    for (const auto& r : h.reads) {
      c.insert(fmt::format("read.dims.{}", r.sizes.size()));
      if (!r.pad.empty()) c.insert("read.padded");
      if (r.iter_stride != 0) c.insert("read.iter_stride");
      for (std::size_t k = 0; k < r.strides.size(); ++k) {
        if (r.sizes[k] <= 1) continue;
        if (r.strides[k] < 0) c.insert("stride.negative");
        if (r.strides[k] == 0) c.insert("stride.zero");
        if (k == 0 && r.strides[k] > 1) c.insert("stride.d0_gt_1");
      }
    }
  }
  return {c.begin(), c.end()};
}

std::vector<std::string> coverage_space(unsigned cores) {
  std::vector<std::string> c{"l2",
                             "read.iter_stride",
                             "read.padded",
                             "stride.d0_gt_1",
                             "stride.negative",
                             "stride.zero",
                             "write.permuted",
                             fmt::format("cores.{}", cores)};
  for (const char* e : {"sys", "mem", "core"}) c.push_back(fmt::format("engine.{}", e));
  for (uint32_t ch = 0; ch < spec::param::dma_channels; ++ch) c.push_back(fmt::format("channel.{}", ch));
  for (unsigned n = 0; n <= 2; ++n) c.push_back(fmt::format("repeat.{}", n));
  for (unsigned n = 1; n <= 3; ++n) c.push_back(fmt::format("chain.{}", n));
  for (unsigned n = 1; n <= spec::param::sysdma_dims; ++n) c.push_back(fmt::format("read.dims.{}", n));
  for (unsigned n = 2; n <= 5; ++n) c.push_back(fmt::format("hops.{}", n));
  for (unsigned k = 0; k < cores; ++k) c.push_back(fmt::format("l1.core{}", k));
  std::sort(c.begin(), c.end());
  return c;
}

std::string summary(const Program& p) {
  std::ostringstream o;
  o << fmt::format("seed {} cores {}: x {} words -> y {} words, {} hops, {} BDs\n", p.seed, p.cores, p.x_words,
                   p.y_words, p.hops.size(), p.descriptors());
  for (const auto& h : p.hops) {
    bool pad = false;
    for (const auto& r : h.reads) pad |= !r.pad.empty();
    o << fmt::format("  {}{} ch{}: {} -> {}  {} read BD(s){}, r{}  {} words/run\n", to_string(h.engine),
                     h.engine == Engine::CORE ? fmt::format(".{}", h.core) : "", h.channel, place_str(h.src),
                     place_str(h.dst), h.reads.size(), pad ? " padded" : "", h.repeat, h.stream_words());
  }
  return o.str();
}

}  // namespace axcore::rand
