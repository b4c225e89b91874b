// Shared helpers of the rtl_core testbenches: a clocked Verilated model owner, packing spec
// structs into wide ports, and the L1 backdoor (ax_sram's DPI functions, bank by bank).
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>
#ifdef AXCORE_RTL_COVERAGE
#include <verilated_cov.h>

#include "axcore/rtl/coverage.hpp"
#endif

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtlcore {

// Owns the context and the model; tick() is one full clock cycle (negedge eval, posedge eval).
// AXCORE_FST=<file> switches FST tracing on (depth 99).
template <class Model>
class Sim {
 public:
  Sim() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(0);
    ctx_->traceEverOn(std::getenv("AXCORE_FST") != nullptr);
    m_ = std::make_unique<Model>(ctx_.get(), "TOP");
    if (const char* f = std::getenv("AXCORE_FST")) {
      fst_ = std::make_unique<VerilatedFstC>();
      m_->trace(fst_.get(), 99);
      fst_->open(f);
    }
    // A real falling edge of rst_ni (the asynchronous resets trigger on it), then release.
    m_->clk_i = 0;
    m_->rst_ni = 1;
    m_->eval();
    m_->rst_ni = 0;
    m_->eval();
    m_->rst_ni = 1;
    m_->eval();
  }
  ~Sim() {
    m_->final();
    if (fst_) fst_->close();
#ifdef AXCORE_RTL_COVERAGE  // a coverage build: the counts go beside the run (axcore/rtl/coverage.hpp)
    ctx_->coveragep()->write(axcore::rtl::coverage_file().c_str());
#endif
  }
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;
  Model& operator*() { return *m_; }
  Model* operator->() { return m_.get(); }
  // Settle the inputs set before the edge, then the rising edge.
  void tick() {
    low();
    high();
  }
  // The two halves of tick(): clock low and inputs settled (outputs may be sampled), rising edge.
  void low() {
    m_->clk_i = 0;
    m_->eval();
    dump();
  }
  void high() {
    m_->clk_i = 1;
    m_->eval();
    ++cycle_;
    dump();
  }
  void settle() { m_->eval(); }
  uint64_t cycle() const { return cycle_; }
  VerilatedContext& ctx() { return *ctx_; }

 private:
  void dump() {
    ctx_->time(ctx_->time() + 1);
    if (fst_) fst_->dump(ctx_->time());
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> m_;
  std::unique_ptr<VerilatedFstC> fst_;
  uint64_t cycle_ = 0;
};

template <std::size_t N, class W>
void set_wide(W& port, const std::array<uint32_t, N>& words) {
  for (std::size_t i = 0; i < N; ++i) port[i] = words[i];
}
template <class W>
void set_wide(W& port, std::span<const uint32_t> words) {
  for (std::size_t i = 0; i < words.size(); ++i) port[i] = words[i];
}

template <class W>
bool bit(const W& w, unsigned pos) {
  return ((w[pos / 32] >> (pos % 32)) & 1u) != 0;
}

// L1 access through a testbench's debug word port (dbg_valid_i/dbg_we_i/dbg_addr_i/dbg_wdata_i,
// dbg_gnt_o/dbg_rsp_valid_o/dbg_rdata_o, as ax_l1 has it): one word per cycle, only while the
// units are idle.
template <class Model>
class L1Dbg {
 public:
  explicit L1Dbg(Sim<Model>& sim) : sim_(sim) {}
  void write_word(uint32_t addr, uint32_t w) {
    sim_->dbg_valid_i = 1;
    sim_->dbg_we_i = 1;
    sim_->dbg_addr_i = addr;
    sim_->dbg_wdata_i = w;
    wait_grant();
    sim_->dbg_valid_i = 0;
  }
  uint32_t read_word(uint32_t addr) {
    sim_->dbg_valid_i = 1;
    sim_->dbg_we_i = 0;
    sim_->dbg_addr_i = addr;
    wait_grant();
    sim_->dbg_valid_i = 0;
    sim_.settle();
    if (!sim_->dbg_rsp_valid_o) throw std::runtime_error("L1Dbg: no read response");
    return sim_->dbg_rdata_o;
  }
  void write_bytes(uint64_t addr, std::span<const uint8_t> bytes) {
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
      uint32_t w = 0;
      for (std::size_t b = 0; b < 4 && i + b < bytes.size(); ++b) w |= uint32_t{bytes[i + b]} << (8 * b);
      write_word(static_cast<uint32_t>(addr + i), w);
    }
  }
  std::vector<uint8_t> read_bytes(uint64_t addr, std::size_t n) {
    std::vector<uint8_t> out;
    for (std::size_t i = 0; i < n; i += 4) {
      const uint32_t w = read_word(static_cast<uint32_t>(addr + i));
      for (std::size_t b = 0; b < 4 && i + b < n; ++b) out.push_back(static_cast<uint8_t>(w >> (8 * b)));
    }
    return out;
  }

 private:
  void wait_grant() {
    for (int i = 0; i < 1000; ++i) {
      sim_.settle();
      const bool g = sim_->dbg_gnt_o;
      sim_.tick();
      if (g) return;
    }
    throw std::runtime_error("L1Dbg: the debug port was never granted");
  }
  Sim<Model>& sim_;
};

}  // namespace rtlcore
