// dma_bd -> walk: what a DMA model runs for a BD, as element patterns over a known tensor.
#include <set>

#include "axcore/tap/bd.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::tap {

namespace {

[[noreturn]] void fail(const std::string& message) { throw ValueError("dma_bd: " + message); }
std::string s(int64_t v) { return std::to_string(v); }

struct Decoded {
  std::vector<SymInt> sizes, strides;  // elements, outermost first
  std::vector<PadPair> pads;
  int64_t offset = 0;  // elements
};

Decoded decode_words(const spec::DmaBd& bd, const DecodeOptions& o, int64_t extra_words) {
  unsigned bits = o.element_bits;
  if (bits != 8 && bits != 16 && bits != 32) {
    fail("element width " + s(bits) + " bits is not supported (elements are 8, 16 or 32 bits)");
  }
  if (!bd.valid) fail("the BD is not valid (BD_INVALID)");
  if (bd.mem == spec::MemSel::RESERVED) fail("the BD names the reserved memory (BD_INVALID)");
  const int64_t e = 32 / bits, bytes = bits / 8;
  const uint32_t sizes_w[] = {bd.d3_size, bd.d2_size, bd.d1_size, bd.d0_size};
  const int32_t strides_w[] = {bd.d3_stride, bd.d2_stride, bd.d1_stride, bd.d0_stride};
  const uint32_t before[] = {bd.d3_pad_before, bd.d2_pad_before, bd.d1_pad_before, bd.d0_pad_before};
  const uint32_t after[] = {bd.d3_pad_after, bd.d2_pad_after, bd.d1_pad_after, bd.d0_pad_after};
  int64_t product = 1;
  Decoded d;
  for (int i = 0; i < 4; ++i) {
    int64_t n = sizes_w[i] == 0 ? 1 : sizes_w[i];
    product *= n;
    if (strides_w[i] < 0) {
      fail("Stride " + s(3 - i) + " is " + s(strides_w[i]) + " words; a walk's strides are >= 0");
    }
    int64_t st = int64_t{strides_w[i]} * e;
    PadPair pad{before[i], after[i]};
    if (i == 3 && e > 1) {
      if (strides_w[i] == 1) {  // a run of whole words: e elements per word, stride 1
        n *= e;
        st = 1;
        pad = {pad.first * e, pad.second * e};
      } else {  // each step moves one word: an extra innermost dimension of e elements
        d.sizes.emplace_back(n);
        d.strides.emplace_back(st);
        d.pads.push_back(pad);
        n = e;
        st = 1;
        pad = {0, 0};
      }
    }
    d.sizes.emplace_back(n);
    d.strides.emplace_back(st);
    d.pads.push_back(pad);
  }
  if (product != bd.length) {
    fail("length is " + s(bd.length) + " words, but the sizes give " + s(product) + " (BD_INVALID)");
  }
  uint64_t addr = (uint64_t{bd.addr_hi} << 32) | bd.addr_lo;
  if (addr % 4 != 0) fail("address " + s(static_cast<int64_t>(addr)) + " is not divisible by 4 (BD_MISALIGNED)");
  if (addr < o.base_address) {
    fail("address " + s(static_cast<int64_t>(addr)) + " is below the tensor's base address " +
         s(static_cast<int64_t>(o.base_address)));
  }
  int64_t rel = static_cast<int64_t>(addr - o.base_address) + extra_words * 4;
  d.offset = rel / bytes;
  return d;
}

TensorAccessPattern make(const Decoded& d, const DecodeOptions& o) {
  std::vector<SymInt> dims(o.tensor_dims.begin(), o.tensor_dims.end());
  TensorAccessPattern p(dims, d.offset, d.sizes, d.strides);
  return p.pad(d.pads);
}

int64_t iteration_words(const spec::DmaBd& bd, uint32_t run) {
  int64_t wrap = bd.iter_size > 1 ? bd.iter_size : 1;
  return ((int64_t{bd.iter_current} + run) % wrap) * bd.iter_stride;
}

}  // namespace

TensorAccessPattern decode_bd(const spec::DmaBd& bd, const DecodeOptions& options, uint32_t run) {
  return make(decode_words(bd, options, iteration_words(bd, run)), options);
}

std::vector<TensorAccessPattern> decode_chain(std::span<const spec::DmaBd> table, uint32_t start_bd, uint32_t repeat,
                                              const DecodeOptions& options) {
  std::vector<const spec::DmaBd*> chain;
  std::set<uint32_t> seen;
  for (uint32_t id = start_bd;;) {
    if (id >= table.size()) {
      fail("the chain from BD " + s(start_bd) + " names BD " + s(id) + ", but there are " +
           s(static_cast<int64_t>(table.size())));
    }
    if (!seen.insert(id).second) {
      fail("the chain from BD " + s(start_bd) + " loops back to BD " + s(id) + " (BD_CHAIN_LOOP)");
    }
    chain.push_back(&table[id]);
    if (!table[id].use_next) break;
    id = table[id].next_bd;
  }
  const uint32_t runs = repeat + 1;
  const spec::DmaBd& first = *chain.front();
  bool plain_iteration = first.iter_size <= 1 || (first.iter_current == 0 && runs <= first.iter_size);
  if (chain.size() == 1 && plain_iteration && first.iter_stride >= 0) {
    Decoded d = decode_words(first, options, 0);
    if (runs > 1) {
      int64_t stride = first.iter_size <= 1 ? 0 : int64_t{first.iter_stride} * (32 / options.element_bits);
      d.sizes.insert(d.sizes.begin(), SymInt(int64_t{runs}));
      d.strides.insert(d.strides.begin(), SymInt(stride));
      d.pads.insert(d.pads.begin(), PadPair{0, 0});
    }
    return {make(d, options)};
  }
  std::vector<TensorAccessPattern> out;
  for (uint32_t r = 0; r < runs; ++r)
    for (const auto* bd : chain) out.push_back(decode_bd(*bd, options, r));
  return out;
}

std::vector<TensorAccessPattern> decode_task(const BdTask& task, const DecodeOptions& options) {
  std::vector<spec::DmaBd> table(task.start_bd + task.bds.size());
  for (std::size_t i = 0; i < task.bds.size(); ++i) table[task.start_bd + i] = task.bds[i];
  return decode_chain(table, task.start_bd, task.repeat, options);
}

std::vector<int64_t> task_walk(const std::vector<TensorAccessPattern>& patterns) {
  std::vector<int64_t> out;
  for (const auto& p : patterns) {
    std::vector<int64_t> w = p.walk();
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

std::string describe(const spec::DmaBd& bd, uint32_t id) {
  uint64_t addr = (uint64_t{bd.addr_hi} << 32) | bd.addr_lo;
  std::string out = "bd " + s(id) + ": len=" + s(bd.length) + " addr=" + text::hex(addr);
  const uint32_t sizes[] = {bd.d0_size, bd.d1_size, bd.d2_size, bd.d3_size};
  const int32_t strides[] = {bd.d0_stride, bd.d1_stride, bd.d2_stride, bd.d3_stride};
  const uint32_t before[] = {bd.d0_pad_before, bd.d1_pad_before, bd.d2_pad_before, bd.d3_pad_before};
  const uint32_t after[] = {bd.d0_pad_after, bd.d1_pad_after, bd.d2_pad_after, bd.d3_pad_after};
  for (int h = 0; h < 4; ++h) out += " d" + s(h) + "=" + s(sizes[h]) + "/" + s(strides[h]);
  out += " iter=" + s(bd.iter_size) + "/" + s(bd.iter_stride);
  bool padded = false;
  for (int h = 0; h < 4; ++h) padded = padded || before[h] || after[h];
  if (padded) {
    out += " pad=";
    for (int h = 0; h < 4; ++h) out += (h ? "," : "") + s(before[h]) + ":" + s(after[h]);
    out += " pad_value=" + s(bd.pad_value);
  }
  out += " next=" + (bd.use_next ? s(bd.next_bd) : std::string("-"));
  return out;
}

}  // namespace axcore::tap
