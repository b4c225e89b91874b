#include "axcore/tlm/tlm_device.hpp"

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "axcore/txn/text.hpp"
#include "core_tile.hpp"
#include "mem_tile.hpp"
#include "shim_tile.hpp"

namespace axcore::tlm {

namespace {
std::atomic<bool> g_elaborated{false};
constexpr uint64_t kHostWriteCycles = 3, kHostReadCycles = 4;
constexpr uint64_t kWriteEffect = 1;
// The read's data is registered at the end of its third cycle (bus request, then the tile's
// registered answer): it shows the state after everything that happened up to that cycle.
constexpr uint64_t kReadSample = 3;

// The host bus: one initiator socket per tile, decoded from the register address.
struct HostBus : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<HostBus>>> tiles;  // by row
  explicit HostBus(sc_core::sc_module_name n, unsigned rows) : sc_module(n) {
    for (unsigned r = 0; r < rows; ++r)
      tiles.push_back(
          std::make_unique<tlm_utils::simple_initiator_socket<HostBus>>(("tile" + std::to_string(r)).c_str()));
  }
};
}  // namespace

struct TlmDevice::Impl : sc_core::sc_module {
  Tracer tracer;
  WordFabric word_fabric;
  Memory ddr;
  Fabric fabric;
  ShimTile shim;
  MemTile mem;
  BarrierHub hub;
  std::vector<std::unique_ptr<CoreTile>> cores;
  HostBus bus;
  unsigned ncores;
  // The host's advances SystemC has not simulated yet (each one's end cycle): run by the next
  // call that acts on or looks at the device (flush), so a poll loop's advance, the read's
  // cycles and the next advance are one sc_start, not three (an sc_start costs as much as
  // simulating a busy cycle). Each keeps its own horizon (host_window_ends), so the models run
  // as they did with an sc_start per advance.
  std::vector<uint64_t> pending;
  uint64_t cycle() const { return pending.empty() ? now_cycles() : pending.back(); }
  void advance(uint64_t c) {
    if (c) pending.push_back(cycle() + c);
  }
  void flush() {
    if (pending.empty()) return;
    const uint64_t now = now_cycles(), end = pending.back();
    host_window_ends().swap(pending);
    pending.clear();
    sc_core::sc_start(static_cast<double>(end - now), sc_core::SC_NS);
    tracer.drain();  // the records that wait for their hashes (Tracer::emit_hashed), before the host looks
  }
  Impl(const TlmOptions& o)
      : sc_module(sc_core::sc_module_name("axcore")),
        word_fabric("word_fabric", o.cores, tracer),
        ddr("ddr", o.ddr_bytes),
        fabric("fabric"),
        shim("shim", tracer, o.cores, &word_fabric),
        mem(
            "mem", tracer, o.cores, [this](uint32_t t, uint64_t c) { shim.offer_token(t, c); }, &word_fabric),
        bus("host", spec::param::first_core_row + o.cores),
        ncores(o.cores) {
    for (unsigned c = 0; c < o.cores; ++c) {
      cores.push_back(std::make_unique<CoreTile>(("core" + std::to_string(c)).c_str(), c, tracer, o.cores,
                                                 [this](uint32_t t, uint64_t cy) { shim.offer_token(t, cy); }, hub,
                                                 &word_fabric));
      hub.cores.push_back(cores.back().get());
    }
    // Fabric targets: 0 DDR, 1 L2, 2 + c L1 of core c. Initiators: every DMA engine.
    fabric.out.bind(ddr.socket);
    fabric.out.bind(mem.l2.socket);
    for (auto& c : cores) fabric.out.bind(c->l1.socket);
    shim.dma->socket.bind(fabric.in);
    mem.dma->socket.bind(fabric.in);
    for (auto& c : cores) c->dma->socket.bind(fabric.in);
    bus.tiles[0]->bind(shim.socket);
    bus.tiles[1]->bind(mem.socket);
    for (unsigned c = 0; c < o.cores; ++c) bus.tiles[2 + c]->bind(cores[c]->socket);
    shim.device_busy = [this] { return busy(); };
    shim.soft_reset = [this] {  // cycle counter, SCRATCH, BD contents and memories keep their values
      shim.reset_tile();
      mem.dma->reset();
      mem.errors.reset();
      for (auto& c : cores) c->soft_reset();
    };
    shim.device_error = [this] {
      bool e = shim.errors.status || mem.errors.status;
      for (auto& c : cores) e = e || c->errors.status;
      return e;
    };
  }
  bool busy() const {
    bool b = shim.busy() || mem.busy();
    for (auto& c : cores) b = b || c->busy();
    return b;
  }
  Tile& tile(uint64_t addr) {
    const auto t = spec::decode_addr(addr);
    if (!t) throw device::DeviceError("tlm: address " + txn::hex(addr) + " names no tile (above the register window)");
    if (t->col != 0 || t->row >= bus.tiles.size())
      throw device::DeviceError("tlm: address " + txn::hex(addr) + " names no tile (col " + std::to_string(t->col) +
                                ", row " + std::to_string(t->row) + ")");
    switch (t->kind) {
      case spec::TileKind::Shim: return shim;
      case spec::TileKind::Mem: return mem;
      case spec::TileKind::Core: break;
    }
    return *cores[t->core];
  }
  void access(uint64_t addr, uint32_t& v, bool write) {
    if (addr % 4) throw device::DeviceError("tlm: unaligned register address " + txn::hex(addr));
    Tile& t = tile(addr);
    const spec::TileAddr at = spec::decode_addr32(static_cast<uint32_t>(addr));  // tile() refused the rest
    ::tlm::tlm_generic_payload p;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    p.set_command(write ? ::tlm::TLM_WRITE_COMMAND : ::tlm::TLM_READ_COMMAND);
    p.set_address(at.offset);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(4);
    p.set_streaming_width(4);
    p.set_response_status(::tlm::TLM_INCOMPLETE_RESPONSE);
    (*bus.tiles[at.row])->b_transport(p, delay);
    if (!p.is_response_ok())
      throw device::DeviceError("tlm: no register at " + txn::hex(addr) + " in tile " + std::string(t.name()));
  }
};

TlmDevice::TlmDevice(TlmOptions opt) {
  if (opt.cores < 1 || opt.cores > spec::param::max_cores)
    throw device::DeviceError("tlm: cores = " + std::to_string(opt.cores) + " outside 1.." +
                              std::to_string(spec::param::max_cores));
  if (g_elaborated.exchange(true))
    throw device::DeviceError("tlm: SystemC elaborates once per process; build one TlmDevice per process");
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_INSTANCE_EXISTS_, sc_core::SC_DO_NOTHING);
  impl_ = std::make_unique<Impl>(opt);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; threads reach their first wait
}

TlmDevice::~TlmDevice() = default;

unsigned TlmDevice::cores() const { return impl_->ncores; }
uint64_t TlmDevice::cycle() const { return impl_->cycle(); }
bool TlmDevice::busy() const {
  impl_->flush();
  return impl_->busy();
}

void TlmDevice::advance(uint64_t cycles) { impl_->advance(cycles); }

// The register access happens in the cycle the RTL's tile sees it (docs/rtl.md "Host interface"):
// a write takes effect kWriteEffect cycles into its 3, a read samples kReadSample cycles into its 4.
uint32_t TlmDevice::read32(uint64_t addr) {
  uint32_t v = 0;
  advance(kReadSample);
  impl_->flush();
  impl_->access(addr, v, false);
  advance(kHostReadCycles - kReadSample);
  return v;
}

void TlmDevice::write32(uint64_t addr, uint32_t value) {
  uint32_t v = value;
  advance(kWriteEffect);
  impl_->flush();
  // As the RTL monitor: the cycle the write takes effect, bytes = 4, data_hash = the value.
  impl_->tracer.emit(now_cycles(), spec::decode_addr32(static_cast<uint32_t>(addr)).row, trace::Unit::HOST,
                     trace::Kind::REG_WRITE, addr, 4, value, 0);
  impl_->access(addr, v, true);
  advance(kHostWriteCycles - kWriteEffect);
}

void TlmDevice::run_until_idle(uint64_t timeout_cycles) {
  const uint64_t start = cycle();
  constexpr uint64_t kStep = 256;
  while (busy()) {
    if (cycle() - start >= timeout_cycles) {
      std::string what;
      if (impl_->shim.busy()) what += " shim(SysDMA)";
      if (impl_->mem.busy()) what += " mem(MemDMA)";
      for (unsigned c = 0; c < impl_->ncores; ++c)
        if (impl_->cores[c]->busy()) what += " core" + std::to_string(c);
      throw device::TimeoutError("tlm: run_until_idle: still busy after " + std::to_string(timeout_cycles) +
                                 " cycles:" + what);
    }
    advance(std::min(kStep, timeout_cycles - (cycle() - start)));
  }
}

uint64_t TlmDevice::ddr_size() const { return impl_->ddr.bytes().size(); }

void TlmDevice::ddr_write(uint64_t addr, std::span<const uint8_t> bytes) {
  impl_->flush();
  auto m = impl_->ddr.bytes();
  if (addr > m.size() || bytes.size() > m.size() - addr)
    throw device::DeviceError("tlm: ddr_write [" + txn::hex(addr) + ", +" + std::to_string(bytes.size()) +
                              ") outside DDR of " + std::to_string(m.size()) + " bytes");
  std::memcpy(m.data() + addr, bytes.data(), bytes.size());
}

void TlmDevice::ddr_read(uint64_t addr, std::span<uint8_t> bytes) {
  impl_->flush();
  auto m = impl_->ddr.bytes();
  if (addr > m.size() || bytes.size() > m.size() - addr)
    throw device::DeviceError("tlm: ddr_read [" + txn::hex(addr) + ", +" + std::to_string(bytes.size()) +
                              ") outside DDR of " + std::to_string(m.size()) + " bytes");
  std::memcpy(bytes.data(), m.data() + addr, bytes.size());
}

void TlmDevice::set_trace_sink(device::TraceSink sink) {
  impl_->flush();
  impl_->tracer.set_sink(std::move(sink));
}

std::span<uint8_t> TlmDevice::l1(unsigned core) {
  if (core >= impl_->ncores) throw device::DeviceError("tlm: no core " + std::to_string(core));
  impl_->flush();
  return impl_->cores[core]->l1.bytes();
}
std::span<uint8_t> TlmDevice::l2() {
  impl_->flush();
  return impl_->mem.l2.bytes();
}

std::string TlmDevice::watchdog_report(unsigned core) const {
  if (core >= impl_->ncores) throw device::DeviceError("tlm: no core " + std::to_string(core));
  impl_->flush();
  return impl_->cores[core]->watchdog_report();
}

}  // namespace axcore::tlm

// libsystemc's own main() calls sc_main; our programs have their own main(), so this weak
// definition only satisfies the link.
__attribute__((weak)) int sc_main(int, char*[]) { return 0; }
