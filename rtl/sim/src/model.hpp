// A Verilated top (ax_sys_tb_top or axcore_top) behind one pin view, so RtlDevice drives every
// configuration with the same code. Internal to axcore_rtl.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>
#ifdef AXCORE_RTL_COVERAGE
#include <verilated_cov.h>
#endif

#include <axcore/spec.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include "axcore/rtl/coverage.hpp"

namespace axcore::rtl {

// The AXI4 master's data ports are axi_data_bytes wide (16, 32 or 64 bytes: Verilator's
// VlWide words) and its strobes one bit a byte.
using AxiStrb = std::conditional_t<(spec::param::axi_data_bytes <= 16), SData,
                                   std::conditional_t<(spec::param::axi_data_bytes <= 32), IData, QData>>;

// Pointers into the model's top-level ports (names as in rtl/top/ax_top_ports.svh).
struct Pins {
  CData *clk, *rst_n;
  CData *s_awvalid, *s_awready, *s_wvalid, *s_wready, *s_wstrb, *s_bvalid, *s_bready, *s_bresp;
  CData *s_arvalid, *s_arready, *s_rvalid, *s_rready, *s_rresp;
  IData *s_awaddr, *s_wdata, *s_araddr, *s_rdata;
  CData *m_awvalid, *m_awready, *m_awid, *m_wvalid, *m_wready;
  AxiStrb* m_wstrb;
  CData *m_bvalid, *m_bready;
  CData *m_bid, *m_bresp, *m_arvalid, *m_arready, *m_arid, *m_rvalid, *m_rready, *m_rid, *m_rresp, *m_rlast;
  QData *m_awaddr, *m_araddr;
  EData *m_wdata, *m_rdata;  // axi_data_bytes / 4 words each
  CData *m_awlen, *m_arlen, *m_wlast;
  CData* busy;
  QData* cycle;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual void eval() = 0;
  virtual void open_fst(const std::string& path, int depth) = 0;
  virtual void dump(uint64_t time) = 0;
  virtual void finish() = 0;
  virtual bool got_error() const = 0;  // an assertion or $error fired
  Pins pins{};
};

template <class V>
class ModelOf final : public Model {
 public:
  explicit ModelOf(bool trace) : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->traceEverOn(trace);
    ctx_->fatalOnError(false);  // an assertion failure is reported, not an abort of the process
    top_ = std::make_unique<V>(ctx_.get(), "TOP");
    bind();
  }
  ~ModelOf() override { finish(); }
  void eval() override { top_->eval(); }
  bool got_error() const override { return ctx_->gotError(); }
  void open_fst(const std::string& path, int depth) override {
    fst_ = std::make_unique<VerilatedFstC>();
    top_->trace(fst_.get(), depth);
    fst_->set_time_unit("1ps");  // RtlDevice::dump passes picoseconds (half cycles at clock_mhz)
    fst_->set_time_resolution("1ps");
    fst_->open(path.c_str());
  }
  void dump(uint64_t time) override {
    if (fst_) fst_->dump(time);
  }
  void finish() override {
    if (done_) return;
    done_ = true;
    top_->final();
    if (fst_) fst_->close();
#ifdef AXCORE_RTL_COVERAGE
    ctx_->coveragep()->write(coverage_file().c_str());
#endif
  }

 private:
  void bind() {
    V& t = *top_;
    pins = Pins{&t.clk_i,       &t.rst_ni,      &t.s_awvalid_i, &t.s_awready_o,     &t.s_wvalid_i,      &t.s_wready_o,
                &t.s_wstrb_i,   &t.s_bvalid_o,  &t.s_bready_i,  &t.s_bresp_o,       &t.s_arvalid_i,     &t.s_arready_o,
                &t.s_rvalid_o,  &t.s_rready_i,  &t.s_rresp_o,   &t.s_awaddr_i,      &t.s_wdata_i,       &t.s_araddr_i,
                &t.s_rdata_o,   &t.m_awvalid_o, &t.m_awready_i, &t.m_awid_o,        &t.m_wvalid_o,      &t.m_wready_i,
                &t.m_wstrb_o,   &t.m_bvalid_i,  &t.m_bready_o,  &t.m_bid_i,         &t.m_bresp_i,       &t.m_arvalid_o,
                &t.m_arready_i, &t.m_arid_o,    &t.m_rvalid_i,  &t.m_rready_o,      &t.m_rid_i,         &t.m_rresp_i,
                &t.m_rlast_i,   &t.m_awaddr_o,  &t.m_araddr_o,  t.m_wdata_o.data(), t.m_rdata_i.data(), &t.m_awlen_o,
                &t.m_arlen_o,   &t.m_wlast_o,   &t.busy_o,      &t.cycle_o};
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
  std::unique_ptr<VerilatedFstC> fst_;
  bool done_ = false;
};

// One factory per configuration (src/model_*.cpp); each includes only its own model header.
std::unique_ptr<Model> make_model_sys(bool trace);
std::unique_ptr<Model> make_model_c1(bool trace);
std::unique_ptr<Model> make_model_c4(bool trace);

class RtlDevice;
void set_trace_target(RtlDevice* dev);  // the device the DPI monitors report to (this thread)

}  // namespace axcore::rtl
