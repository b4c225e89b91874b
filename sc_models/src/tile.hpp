// Base of the three tile models: a TLM-2.0 target socket for the tile's 1 MiB register window,
// the spec-driven register table and the tile's error registers.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <span>

#include "regfile.hpp"
#include "sim.hpp"

namespace axcore::tlm {

class Tile : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Tile> socket;
  Tile(sc_core::sc_module_name n, std::span<const spec::RegisterInfo> table, uint32_t tile_row, Tracer& tile_tracer)
      : sc_module(n), socket("socket"), regs(table), row(tile_row), tracer(tile_tracer) {
    socket.register_b_transport(this, &Tile::b_transport);
    regs.on_read("ERROR_STATUS", [this](uint32_t, uint32_t) { return errors.status; });
    regs.on_read("ERROR_INFO", [this](uint32_t, uint32_t) { return errors.info; });
    regs.on_read("ERROR_ADDR", [this](uint32_t, uint32_t) { return errors.addr; });
    regs.on_write("ERROR_STATUS", [this](uint32_t, uint32_t, uint32_t v) { errors.clear(v); });
  }
  virtual bool busy() const = 0;
  RegFile regs;
  ErrorRecorder errors;
  const uint32_t row;
  Tracer& tracer;

 private:
  void b_transport(::tlm::tlm_generic_payload& p, sc_core::sc_time&) {
    const auto off = static_cast<uint32_t>(p.get_address());
    if (p.get_data_length() != 4) {
      p.set_response_status(::tlm::TLM_BURST_ERROR_RESPONSE);
      return;
    }
    uint32_t v = 0;
    bool ok;
    if (p.is_write()) {
      std::memcpy(&v, p.get_data_ptr(), 4);
      ok = regs.write(off, v);
    } else {
      ok = regs.read(off, v);
      std::memcpy(p.get_data_ptr(), &v, 4);
    }
    p.set_response_status(ok ? ::tlm::TLM_OK_RESPONSE : ::tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
};

}  // namespace axcore::tlm
