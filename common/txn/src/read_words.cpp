#include "axcore/txn/read_words.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace axcore::txn {
namespace {

namespace dd = spec::layout::datapath_desc;

// The index k of a field named "<letter><k>_..." (d3_size, g1_coef0), or -1.
int indexed(std::string_view name, char letter) {
  if (name.size() < 3 || name[0] != letter || name[1] < '0' || name[1] > '9' || name[2] != '_') return -1;
  return name[1] - '0';
}

// Marks, from word `at` of `out`, the words of struct S that hold a field `keep` accepts.
template <class S, class Keep>
void mark(std::vector<bool>& out, std::size_t at, Keep keep) {
  for (const spec::FieldInfo& f : S::kFields)
    if (at + f.word < out.size() && keep(f.name)) out[at + f.word] = true;
}
template <class S>
void mark_all(std::vector<bool>& out, std::size_t at) {
  mark<S>(out, at, [](std::string_view) { return true; });
}

// S decoded from `words` at `at`, reading zeros past the end.
template <class S>
S decode_at(std::span<const uint32_t> words, std::size_t at) {
  std::vector<uint32_t> w(S::kWords, 0);
  for (std::size_t i = 0; i < S::kWords && at + i < words.size(); ++i) w[i] = words[at + i];
  return S::decode(w);
}

void mark_walk(std::vector<bool>& out, std::size_t at, const spec::Walk& w) {
  const std::vector<bool> r = walk_read_words(w);
  for (std::size_t i = 0; i < r.size() && at + i < out.size(); ++i) out[at + i] = out[at + i] || r[i];
}

}  // namespace

std::vector<bool> walk_read_words(const spec::Walk& w) {
  std::vector<bool> out(spec::Walk::kWords, false);
  mark<spec::Walk>(out, 0, [&](std::string_view name) {
    // dimension 0 whatever ndims says: the RTL picks the word after a walk's word 0 before it
    // arrived (ax_fetch_next)
    if (const int d = indexed(name, 'd'); d >= 0) return d == 0 || d < static_cast<int>(w.ndims);
    if (const int g = indexed(name, 'g'); g >= 0) return g < static_cast<int>(w.nguards);
    return true;
  });
  return out;
}

std::vector<bool> queue_read_words(spec::Queue q, std::span<const uint32_t> words) {
  std::vector<bool> out(words.size(), false);
  if (q == spec::Queue::LOADIMC) {
    mark_all<spec::LoadimcDesc>(out, 0);
    return out;
  }
  if (q == spec::Queue::CTRL) {
    mark_all<spec::BarrierDesc>(out, 0);
    return out;
  }
  const auto h = decode_at<spec::DpHeader>(words, dd::header);
  mark_all<spec::DpHeader>(out, dd::header);
  // each feeder's walk, then the seg sections its segs names (IFD0's first, then IFD1's)
  uint32_t segs = 0;
  for (const auto& [has, at] : {std::pair{h.has_ifd0, dd::ifd0}, std::pair{h.has_ifd1, dd::ifd1}}) {
    if (!has) continue;
    const auto w = decode_at<spec::Walk>(words, at);
    mark_walk(out, at, w);
    segs += w.segs;
  }
  const uint32_t seg_at[] = {dd::seg0, dd::seg1};
  for (uint32_t k = 0; k < std::min<uint32_t>(segs, spec::param::ifd_seg_walks); ++k)
    mark_walk(out, seg_at[k], decode_at<spec::Walk>(words, seg_at[k]));
  if (h.has_main) {
    mark_all<spec::MvmDesc>(out, dd::mvm);
    mark_all<spec::DwpuDesc>(out, dd::dwpu);
  }
  if (h.has_dpu) {
    mark_all<spec::DpuDesc>(out, dd::dpu);
    for (std::size_t i = dd::program; i < out.size(); ++i) out[i] = true;
  }
  if (h.has_odr) mark_walk(out, dd::odr, decode_at<spec::Walk>(words, dd::odr));
  return out;
}

std::vector<bool> descriptor_read_words(std::span<const uint32_t> words) {
  const uint32_t magic = words.empty() ? 0 : words[0] & 0xFF;
  if (magic == spec::magic::loadimc) return queue_read_words(spec::Queue::LOADIMC, words);
  if (magic == spec::magic::barrier) return queue_read_words(spec::Queue::CTRL, words);
  if (magic == spec::magic::datapath) return queue_read_words(spec::Queue::MVMEXE, words);
  return std::vector<bool>(words.size(), true);
}

std::vector<bool> bd_read_words(bool address_patched) {
  std::vector<bool> out(spec::DmaBd::kWords, false);
  mark<spec::DmaBd>(
      out, 0, [&](std::string_view name) { return !(address_patched && (name == "addr_lo" || name == "addr_hi")); });
  return out;
}

}  // namespace axcore::txn
