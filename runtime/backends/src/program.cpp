#include "axcore/runtime/program.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "axcore/runtime/buffer_image.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::runtime {
namespace {

std::string expected_inputs(const Bundle& b) {
  std::string s;
  for (const auto& buf : b.buffers)
    if (buf.role == BufferRole::INPUT)
      s += "\n  " + buf.name + ": " + std::string(spec::to_string(buf.dtype)) + " " + shape_text(buf.shape);
  return s.empty() ? " (none)" : s;
}

using text::hex;

// A bundle whose dispatch-time scalars are not bound would run as its stored point: refused.
void require_bound(const Bundle& b) {
  if (b.dispatch.empty()) return;
  std::string s;
  for (const auto& x : b.dispatch.scalars) s += " " + x.name;
  throw RunError("the bundle has dispatch-time scalars (" + s.substr(1) +
                 "): bind the call's values first (dispatch_call or bind_dispatch; axrun --param NAME=VALUE)");
}

}  // namespace

void check_inputs(const Bundle& b, const Arrays& inputs, bool allow_missing) {
  require_bound(b);
  for (const auto& [name, arr] : inputs) {
    const BufferDesc* buf = b.find_buffer(name);
    if (!buf || buf->role != BufferRole::INPUT)
      throw RunError("unknown input '" + name + "'" +
                     (buf ? " (it is a " + std::string(to_string(buf->role)) + " buffer)" : "") +
                     "; the bundle's inputs are:" + expected_inputs(b));
    if (auto m = mismatch(*buf, arr); !m.empty()) throw RunError(m);
  }
  if (allow_missing) return;
  for (const auto& buf : b.buffers)
    if (buf.role == BufferRole::INPUT && !inputs.count(buf.name))
      throw RunError("missing input '" + buf.name + "': expected " + std::string(spec::to_string(buf.dtype)) + " " +
                     shape_text(buf.shape) + "; the bundle's inputs are:" + expected_inputs(b));
}

std::map<std::string, uint32_t, std::less<>> param_bits(const Bundle& b,
                                                        const std::map<std::string, std::string, std::less<>>& values) {
  require_bound(b);
  std::map<std::string, uint32_t, std::less<>> out;
  for (const auto& p : b.params) out[p.name] = p.default_bits;
  for (const auto& [name, text] : values) {
    const RuntimeParam* p = b.find_param(name);
    if (!p) {
      std::string known;
      for (const auto& q : b.params) known += " " + q.name + " (" + std::string(to_string(q.type)) + ")";
      throw RunError("unknown parameter '" + name +
                     "'; the bundle's parameters are:" + (known.empty() ? " (none)" : known));
    }
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (p->type == ParamType::INT32) {
      int64_t v = 0;
      int base = 10;
      if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        first += 2;
        base = 16;
      }
      auto [ptr, ec] = std::from_chars(first, last, v, base);
      if (ec != std::errc() || ptr != last || v < INT32_MIN || v > int64_t{UINT32_MAX})
        throw RunError("parameter '" + name + "' is int32, '" + text + "' is not an int32 value");
      out[name] = static_cast<uint32_t>(v);
    } else {
      float v = 0;
      auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || ptr != last)
        throw RunError("parameter '" + name + "' is float32, '" + text + "' is not a number");
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      out[name] = bits;
    }
  }
  return out;
}

DispatchedCall dispatch_call(const Bundle& b, const std::map<std::string, std::string, std::less<>>& params) {
  if (b.dispatch.empty()) return {b, params};
  DispatchedCall out;
  DispatchValues values;
  for (const auto& kv : params) {
    const std::string &name = kv.first, &text = kv.second;
    const bool scalar = std::any_of(b.dispatch.scalars.begin(), b.dispatch.scalars.end(),
                                    [&](const DispatchScalar& s) { return s.name == name; });
    if (!scalar) {
      out.params.emplace(name, text);
      continue;
    }
    int64_t v = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      first += 2;
      base = 16;
    }
    auto [ptr, ec] = std::from_chars(first, last, v, base);
    if (ec != std::errc() || ptr != last || first == last)
      throw RunError("dispatch-time scalar '" + name + "' is an integer, '" + text + "' is not");
    values[name] = v;
  }
  out.bundle = bind_dispatch(b, values);
  return out;
}

std::map<std::string, uint64_t, std::less<>> place_buffers(const Bundle& b, uint64_t ddr_size, uint64_t base) {
  std::map<std::string, uint64_t, std::less<>> at;
  uint64_t next = base;
  for (const auto& buf : b.buffers) {
    const uint64_t al = buf.layout.align;
    next = (next + al - 1) & ~(al - 1);
    const uint64_t size = device_bytes(buf);
    if (next > ddr_size || size > ddr_size - next)
      throw RunError("buffer '" + buf.name + "' (" + std::to_string(size) + " bytes at " + hex(next) +
                     ") does not fit the device's " + std::to_string(ddr_size) + "-byte DDR");
    at[buf.name] = next;
    next += size;
  }
  return at;
}

std::vector<ArgBinding> bind_arguments(const Bundle& b, uint64_t ddr_base, const BufferAddrs& at) {
  std::vector<ArgBinding> args;
  for (const auto& buf : b.buffers) {
    if (!buf.arg) continue;
    if (args.size() <= *buf.arg) args.resize(*buf.arg + 1, {"(unbound)", 0, 0});
    args[*buf.arg] = {buf.name, ddr_base + at.at(buf.name), device_bytes(buf)};
  }
  return args;
}

uint64_t write_buffer_images(device::Device& dev, const Bundle& b, const Arrays& inputs, const BufferAddrs& at) {
  uint64_t bytes = 0;
  for (const auto& buf : b.buffers) {
    if (buf.role != BufferRole::INPUT && buf.role != BufferRole::CONSTANT) continue;
    const uint64_t base = at.at(buf.name);
    // straight into DDR, the packed array's bytes and then the zeros (no image copy)
    auto write = [&](uint64_t offset, std::span<const uint8_t> piece) { dev.ddr_write(base + offset, piece); };
    if (buf.role == BufferRole::INPUT)
      write_device_image(buf, inputs.find(buf.name)->second, write);
    else
      write_constant_image(b, buf, write);
    bytes += device_bytes(buf);
  }
  return bytes;
}

std::vector<uint32_t> prepare_program(device::Device& dev, const Bundle& b, const ParamBits& bits) {
  ProgramTxn prog = program_txn(b, bits);
  for (const auto& [t, v] : prog.before) dev.mask_write32(t.addr, v << t.shift, t.mask);
  return std::move(prog.txn);
}

uint64_t read_outputs(device::Device& dev, const Bundle& b, const BufferAddrs& at, Arrays& out) {
  uint64_t bytes = 0;
  for (const auto& buf : b.buffers) {
    if (buf.role != BufferRole::OUTPUT) continue;
    std::vector<uint8_t> img(device_bytes(buf));
    dev.ddr_read(at.at(buf.name), img);
    bytes += img.size();
    out.emplace(buf.name, from_device_image(buf, img));
  }
  return bytes;
}

std::string dma_channel_name(uint32_t row, bool mm2s, uint32_t channel) {
  const std::string engine = row == spec::param::shim_row ? "sysdma"
                             : row == spec::param::mem_row
                                 ? "memdma"
                                 : "core" + std::to_string(row - spec::param::first_core_row) + ".dma";
  return engine + (mm2s ? ".mm2s" : ".s2mm") + std::to_string(channel);
}

RunResult run_on_device(device::Device& dev, const Bundle& b, const Arrays& inputs, const RunOptions& opt) {
  if (!b.dispatch.empty()) {  // bind the call's sizes first: a refused call never reaches the device
    DispatchedCall call = dispatch_call(b, opt.params);
    RunOptions o = opt;
    o.params = std::move(call.params);
    return run_on_device(dev, call.bundle, inputs, o);
  }
  check_inputs(b, inputs);
  const auto bits = param_bits(b, opt.params);
  if (b.txn.empty()) throw RunError("the bundle has no TXN stream; only the ref backend can run it");
  RunResult res;
  res.buffer_addr = place_buffers(b, dev.ddr_size());
  // Arguments, by index (gaps stay unbound: a patch of one is an error naming it).
  const auto args = bind_arguments(b, dev.ddr_base(), res.buffer_addr);
  res.host_bytes_in = write_buffer_images(dev, b, inputs, res.buffer_addr);
  const uint64_t start = dev.cycle();
  const auto program = prepare_program(dev, b, bits);
  res.play = play(dev, program, args, opt.play);
  dev.run_until_idle(opt.idle_timeout_cycles);
  res.cycles = dev.cycle() - start;
  res.host_bytes_out = read_outputs(dev, b, res.buffer_addr, res.outputs);
  // Counters where the device has them (a backend that cannot read one just reports less).
  try {
    for (unsigned c = 0; c < dev.cores(); ++c)
      for (auto u : spec::kPerfUnitValues) {
        const auto cnt = dev.counters(c, static_cast<unsigned>(u));
        std::string n(spec::to_string(u));
        for (auto& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        res.units.push_back({"core" + std::to_string(c) + "." + n, cnt});
      }
    for (unsigned row = 0; row < spec::core_row(dev.cores()); ++row)
      for (uint32_t ch = 0; ch < spec::param::dma_channels; ++ch)
        for (const bool mm2s : {false, true}) {
          const auto reg = mm2s ? spec::shim::DMA_MM2S_BYTES.at(ch) : spec::shim::DMA_S2MM_BYTES.at(ch);
          const uint64_t bytes = dev.read32(spec::tile_addr(0, row, reg));
          res.dma.push_back({dma_channel_name(row, mm2s, ch), row, ch, mm2s, bytes});
          res.dma_bytes += bytes;
        }
  } catch (const device::DeviceError&) {}
  res.sticky = read_sticky_status(dev);
  return res;
}

uint64_t RunResult::imc_stale_reads() const {
  uint64_t n = 0;
  for (const auto& [key, v] : sticky)
    if (key.size() > 16 && key.ends_with(".IMC_STALE_READS")) n += v;
  return n;
}

}  // namespace axcore::runtime
