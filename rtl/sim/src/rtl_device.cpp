#include "axcore/rtl/rtl_device.hpp"

#include <array>
#include <axcore/spec.hpp>
#include <cstring>
#include <stdexcept>
#include <string>

#include "axcore/text/hex.hpp"
#include "model.hpp"

namespace axcore::rtl {

namespace P = spec::param;
using device::DeviceError;
using device::TimeoutError;

namespace {
constexpr unsigned kRows = 8, kUnits = 32;  // MEM_WRITE assembly slots per (row, unit)
constexpr uint64_t kBusTimeout = 10000;     // cycles a register access may take at most
constexpr unsigned kResetCycles = 4;

std::unique_ptr<Model> make_model(unsigned cores, bool trace) {
  switch (cores) {
    case 0: return make_model_sys(trace);
#ifdef AXCORE_RTL_HAVE_C1
    case 1: return make_model_c1(trace);
#endif
#ifdef AXCORE_RTL_HAVE_C4
    case 4: return make_model_c4(trace);
#endif
    default:
      throw DeviceError("RtlDevice: no model for cores = " + std::to_string(cores) +
                        " in this build (configurations: 0 = system test top" +
#ifdef AXCORE_RTL_HAVE_C1
                        ", 1" +
#endif
#ifdef AXCORE_RTL_HAVE_C4
                        ", 4" +
#endif
                        std::string(")"));
  }
}
}  // namespace

RtlOptions::RtlOptions() : ddr_latency_cycles(P::ddr_latency_cycles), ddr_bytes_per_cycle(P::ddr_bytes_per_cycle) {}

bool RtlDevice::has_config(unsigned cores) {
  bool c1 = false, c4 = false;
#ifdef AXCORE_RTL_HAVE_C1
  c1 = true;
#endif
#ifdef AXCORE_RTL_HAVE_C4
  c4 = true;
#endif
  return cores == 0 || (cores == 1 && c1) || (cores == 4 && c4);
}

RtlDevice::RtlDevice(const RtlOptions& opt)
    : cores_(opt.cores),
      ddr_(uint64_t{1} << P::ddr_addr_bits, opt.ddr_latency_cycles, opt.ddr_bytes_per_cycle, P::axi_data_bytes),
      model_(make_model(opt.cores, !opt.fst_path.empty())),
      open_(std::make_unique<Open[]>(kRows * kUnits)) {
  fst_from_ = opt.fst_from;
  fst_to_ = opt.fst_to;
  if (!opt.fst_path.empty()) model_->open_fst(opt.fst_path, opt.fst_depth);
  Pins& p = model_->pins;
  *p.s_awvalid = *p.s_wvalid = *p.s_arvalid = 0;
  *p.s_bready = *p.s_rready = 1;
  *p.s_wstrb = 0xF;
  *p.m_awready = *p.m_wready = *p.m_arready = 1;
  *p.m_bvalid = *p.m_rvalid = 0;
  *p.rst_n = 0;
  for (unsigned i = 0; i < kResetCycles; ++i) tick();
  *p.rst_n = 1;
  cycle_ = 0;  // device cycle 0 is the first after reset; the FST keeps counting (dump())
  in_reset_ = false;
}

// FST time in picoseconds (the model's resolution, model.hpp): half cycles at spec clock_mhz.
// The reset ticks take the first kResetCycles cycles, so device cycle c is at (c + kResetCycles)
// periods; the top's cycle_o signal shows c itself. Outside [fst_from, fst_to] nothing is dumped.
void RtlDevice::dump(unsigned half) {
  if (!in_reset_ && (cycle_ < fst_from_ || cycle_ > fst_to_)) return;
  const uint64_t halves = 2 * (cycle_ + (in_reset_ ? 0 : kResetCycles)) + half;
  model_->dump(static_cast<uint64_t>(static_cast<double>(halves) * 500000.0 / P::clock_mhz + 0.5));
}

RtlDevice::~RtlDevice() {
  set_trace_target(nullptr);
  model_->finish();
}

void RtlDevice::tick(HostSample* host) {
  Pins& p = *&model_->pins;
  // DDR responses due this cycle.
  constexpr unsigned kAxiWords = P::axi_data_bytes / 4;
  const DdrModel::Beat* r = ddr_.read_response(cycle_);
  const DdrModel::Beat* b = ddr_.write_response(cycle_);
  *p.m_rvalid = r != nullptr;
  *p.m_rid = r ? r->id : 0;
  if (r) std::memcpy(p.m_rdata, r->data.data(), P::axi_data_bytes);  // little endian words
  *p.m_rresp = 0;
  *p.m_rlast = r ? r->last : 1;
  *p.m_bvalid = b != nullptr;
  *p.m_bid = b ? b->id : 0;
  *p.m_bresp = 0;
  *p.m_wready = ddr_.w_ready(cycle_);
  // Settle with the clock low, then sample this cycle's AXI master handshakes.
  *p.clk = 0;
  model_->eval();
  dump(0);
  if (host) {  // a register access samples its handshakes here: no extra evaluation per cycle
    *host = HostSample{*p.s_awready != 0, *p.s_wready != 0, *p.s_bvalid != 0, *p.s_arready != 0,
                       *p.s_rvalid != 0,  *p.s_bresp,       *p.s_rresp,       *p.s_rdata};
  }
  const bool r_taken = r && *p.m_rready;
  const bool b_taken = b && *p.m_bready;
  try {
    if (*p.m_arvalid && *p.m_arready) ddr_.accept_read(cycle_, *p.m_arid, *p.m_araddr, *p.m_arlen);
    if (*p.m_awvalid && *p.m_awready) ddr_.accept_aw(cycle_, *p.m_awid, *p.m_awaddr, *p.m_awlen);
    if (*p.m_wvalid && *p.m_wready) {
      uint8_t w[P::axi_data_bytes];
      static_assert(kAxiWords * 4 == P::axi_data_bytes);
      std::memcpy(w, p.m_wdata, P::axi_data_bytes);
      ddr_.accept_w(cycle_, w, static_cast<uint64_t>(*p.m_wstrb), *p.m_wlast != 0);
    }
  } catch (const std::out_of_range& e) {
    throw DeviceError(std::string("RtlDevice: the AXI master left DDR: ") + e.what());
  } catch (const std::logic_error& e) { throw DeviceError(std::string("RtlDevice: AXI protocol: ") + e.what()); }
  if (r_taken) ddr_.pop_read();
  if (b_taken) ddr_.pop_write();
  // Rising edge: the monitors report through DPI.
  set_trace_target(this);
  *p.clk = 1;
  model_->eval();
  dump(1);
  ++cycle_;
  if (model_->got_error()) {
    throw DeviceError("RtlDevice: an RTL assertion failed in cycle " + std::to_string(cycle_ - 1) +
                      " (the message is on stderr); the model cannot continue");
  }
}

bool RtlDevice::busy() const { return *model_->pins.busy != 0; }

void RtlDevice::check_reg_addr(uint64_t addr) {
  if (addr > 0xFFFFFFFFull || addr % 4 != 0) {
    throw DeviceError("RtlDevice: register address " + text::hex(addr) + " is not a 4-byte aligned 32-bit address");
  }
}

void RtlDevice::bus_error(const char* what, uint64_t addr, unsigned resp) {
  throw DeviceError(std::string("RtlDevice: ") + what + " " + text::hex(addr) + ": " +
                    (resp == 2 ? "SLVERR (no register answers there)" : "response " + std::to_string(resp)));
}

void RtlDevice::write32(uint64_t addr, uint32_t value) {
  check_reg_addr(addr);
  Pins& p = model_->pins;
  *p.s_awvalid = *p.s_wvalid = 1;
  *p.s_awaddr = static_cast<uint32_t>(addr);
  *p.s_wdata = value;
  *p.s_wstrb = 0xF;
  const uint64_t start = cycle_;
  for (;;) {
    // The handshakes of this cycle before its edge (tick settles, samples, then clocks).
    HostSample h;
    tick(&h);
    const bool accepted = h.awready && h.wready;
    const bool done = h.bvalid;
    const unsigned resp = h.bresp;
    if (accepted) *p.s_awvalid = *p.s_wvalid = 0;
    if (done) {
      if (resp != 0) bus_error("write32", addr, resp);
      trace::Record rec;
      const spec::TileAddr at = spec::decode_addr32(static_cast<uint32_t>(addr));
      rec.col = static_cast<uint8_t>(at.col);
      rec.row = static_cast<uint8_t>(at.row);
      rec.unit = trace::Unit::HOST;
      rec.kind = trace::Kind::REG_WRITE;
      rec.addr = addr;
      rec.bytes = 4;
      rec.data_hash = value;
      rec.cycle = start + 1;  // the cycle the write takes effect
      emit(rec);
      return;
    }
    if (cycle_ - start > kBusTimeout) throw TimeoutError("RtlDevice: write32 " + text::hex(addr) + " got no response");
  }
}

uint32_t RtlDevice::read32(uint64_t addr) {
  check_reg_addr(addr);
  Pins& p = model_->pins;
  *p.s_arvalid = 1;
  *p.s_araddr = static_cast<uint32_t>(addr);
  const uint64_t start = cycle_;
  for (;;) {
    HostSample h;
    tick(&h);
    const bool accepted = h.arready;
    const bool done = h.rvalid;
    const unsigned resp = h.rresp;
    const uint32_t data = h.rdata;
    if (accepted) *p.s_arvalid = 0;
    if (done) {
      if (resp != 0) bus_error("read32", addr, resp);
      return data;
    }
    if (cycle_ - start > kBusTimeout) throw TimeoutError("RtlDevice: read32 " + text::hex(addr) + " got no response");
  }
}

void RtlDevice::advance(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) tick();
}

void RtlDevice::run_until_idle(uint64_t timeout_cycles) {
  const uint64_t start = cycle_;
  while (busy()) {
    if (cycle_ - start >= timeout_cycles) {
      // Name what is busy: the DMA channels of shim and mem, then each core's status.
      std::string what;
      auto chan = [&](uint32_t row, const char* tile) {
        for (unsigned c = 0; c < P::dma_channels; ++c) {
          for (int mm2s = 0; mm2s < 2; ++mm2s) {
            const spec::Reg& r = mm2s ? spec::shim::DMA_MM2S_STATUS : spec::shim::DMA_S2MM_STATUS;
            const uint32_t st = read32(spec::tile_addr(0, row, r.at(c)));
            if (st & 0x3F) {
              what += std::string(" ") + tile + (mm2s ? " MM2S" : " S2MM") + std::to_string(c) + " (status " +
                      text::hex(st) + ")";
            }
          }
        }
      };
      chan(P::shim_row, "shim");
      chan(P::mem_row, "mem");
      for (unsigned c = 0; c < cores_; ++c) {
        const uint32_t st = read32(spec::tile_addr(0, spec::core_row(c), spec::core::CORE_STATUS.offset));
        if (st != 0) what += " core" + std::to_string(c) + " (CORE_STATUS " + text::hex(st) + ")";
      }
      throw TimeoutError("RtlDevice: still busy after " + std::to_string(timeout_cycles) +
                         " cycles:" + (what.empty() ? std::string(" (no channel reports work)") : what));
    }
    tick();
  }
}

void RtlDevice::ddr_write(uint64_t addr, std::span<const uint8_t> bytes) {
  try {
    ddr_.write(addr, bytes);
  } catch (const std::out_of_range& e) { throw DeviceError(std::string("RtlDevice::ddr_write: ") + e.what()); }
}

void RtlDevice::ddr_read(uint64_t addr, std::span<uint8_t> bytes) {
  try {
    ddr_.read(addr, bytes);
  } catch (const std::out_of_range& e) { throw DeviceError(std::string("RtlDevice::ddr_read: ") + e.what()); }
}

void RtlDevice::emit(trace::Record r) {
  r.seq = seq_++;
  if (sink_) sink_(r);
}

void RtlDevice::on_task(unsigned row, unsigned unit, bool start, uint32_t addr, uint32_t bytes, uint32_t word) {
  trace::Record r;
  r.cycle = cycle_;
  r.row = static_cast<uint8_t>(row);
  r.unit = static_cast<trace::Unit>(unit);
  r.kind = start ? trace::Kind::TASK_START : trace::Kind::TASK_DONE;
  r.addr = addr;
  r.bytes = start ? 0 : bytes;
  r.token = word;
  emit(r);
}

void RtlDevice::on_write(unsigned row, unsigned unit, bool first, bool last, uint64_t addr, unsigned nbytes,
                         const uint32_t* data) {
  if (row >= kRows || unit >= kUnits || nbytes > 64) {
    throw DeviceError("RtlDevice: monitor beat from row " + std::to_string(row) + " unit " + std::to_string(unit) +
                      " with " + std::to_string(nbytes) + " bytes");
  }
  Open& o = open_[row * kUnits + unit];
  if (first || !o.open) o = Open{true, addr, 0xcbf29ce484222325ULL, 0};
  std::array<uint8_t, 64> bytes{};
  for (unsigned i = 0; i < nbytes; ++i) bytes[i] = static_cast<uint8_t>(data[i / 4] >> 8 * (i % 4));
  o.hash = trace::fnv1a64(std::span<const uint8_t>(bytes.data(), nbytes), o.hash);
  o.bytes += nbytes;
  if (!last) return;
  trace::Record r;
  r.cycle = cycle_;
  r.row = static_cast<uint8_t>(row);
  r.unit = static_cast<trace::Unit>(unit);
  r.kind = trace::Kind::MEM_WRITE;
  r.addr = o.addr;
  r.bytes = o.bytes;
  r.data_hash = o.hash;
  o.open = false;
  emit(r);
}

void RtlDevice::on_token(uint32_t word) {
  trace::Record r;
  r.cycle = cycle_;
  r.row = static_cast<uint8_t>(P::shim_row);
  r.unit = trace::Unit::TOKEN;
  r.kind = trace::Kind::TOKEN;
  r.token = word;
  emit(r);
}

}  // namespace axcore::rtl
