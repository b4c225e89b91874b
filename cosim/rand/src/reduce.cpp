#include "reduce.hpp"

#include <fmt/format.h>

namespace axcore::rand {
namespace {

// Size order: fewer BDs first, then fewer words moved, then a smaller input.
std::tuple<std::size_t, uint64_t, uint64_t> weight(const Program& p) {
  uint64_t words = 0;
  for (const auto& h : p.hops) words += (h.repeat + 1) * h.stream_words();
  return {p.descriptors(), words, p.x_words};
}

std::vector<std::pair<std::string, Program>> candidates(const Program& p) {
  std::vector<std::pair<std::string, Program>> out;
  auto add = [&](std::string what, Program q) { out.emplace_back(std::move(what), std::move(q)); };
  for (std::size_t i = 0; i < p.hops.size(); ++i) {
    if (p.hops.size() > 2) {
      Program q = p;
      if (i == 0) q.hops[1].src = p.hops[0].src;
      if (i + 1 == p.hops.size()) q.hops[i - 1].dst = p.hops[i].dst;
      q.hops.erase(q.hops.begin() + static_cast<std::ptrdiff_t>(i));
      add(fmt::format("drop hop {}", i), std::move(q));
    }
    const Hop& h = p.hops[i];
    if (h.engine != Engine::SYS) {
      Program q = p;
      q.hops[i].engine = Engine::SYS;
      add(fmt::format("hop {} on SysDMA", i), std::move(q));
    }
    if (h.repeat > 0) {
      Program q = p;
      q.hops[i].repeat = 0;
      add(fmt::format("hop {} without repeat", i), std::move(q));
    }
    if (h.write.sizes.size() > 1) {
      Program q = p;
      q.hops[i].write.sizes = {1};
      add(fmt::format("hop {} linear write", i), std::move(q));
    }
    for (std::size_t r = 0; r < h.reads.size(); ++r) {
      const Walk& w = h.reads[r];
      if (h.reads.size() > 1) {
        Program q = p;
        q.hops[i].reads.erase(q.hops[i].reads.begin() + static_cast<std::ptrdiff_t>(r));
        add(fmt::format("hop {} drop read {}", i, r), std::move(q));
      }
      if (!w.pad.empty()) {
        Program q = p;
        q.hops[i].reads[r].pad.clear();
        add(fmt::format("hop {} read {} unpadded", i, r), std::move(q));
      }
      if (w.iter_stride != 0) {
        Program q = p;
        q.hops[i].reads[r].iter_stride = 0;
        add(fmt::format("hop {} read {} no iteration stride", i, r), std::move(q));
      }
      if (w.sizes.size() > 1) {
        Program q = p;
        auto& qw = q.hops[i].reads[r];
        qw.sizes.pop_back();
        qw.strides.pop_back();
        if (!qw.pad.empty()) qw.pad.pop_back();
        add(fmt::format("hop {} read {} one dimension less", i, r), std::move(q));
      }
      for (std::size_t k = 0; k < w.sizes.size(); ++k) {
        if (w.sizes[k] > 1) {
          Program q = p;
          q.hops[i].reads[r].sizes[k] = w.sizes[k] / 2;
          add(fmt::format("hop {} read {} d{} halved", i, r, k), std::move(q));
        }
      }
    }
  }
  if (p.x_words > 1) {
    Program q = p;
    q.x_words = p.x_words / 2;
    add("input halved", std::move(q));
  }
  return out;
}

}  // namespace

Program reduce(Program p, const FailPredicate& fails, ReduceStats* stats,
               const std::function<void(const std::string&)>& log) {
  ReduceStats s;
  s.bds_before = p.descriptors();
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& [what, q] : candidates(p)) {
      if (!normalize(q) || !(weight(q) < weight(p))) continue;
      ++s.tried;
      if (fails(q)) {
        ++s.kept;
        if (log) log(fmt::format("kept: {} -> {} BDs", what, q.descriptors()));
        p = std::move(q);
        progress = true;
        break;
      }
    }
  }
  s.bds_after = p.descriptors();
  if (stats) *stats = s;
  return p;
}

}  // namespace axcore::rand
