#include "memory.hpp"

#include <cstring>
#include <new>

namespace axcore::tlm {

Memory::Memory(sc_core::sc_module_name n, uint64_t bytes)
    : sc_module(n), socket("socket"), data_(static_cast<uint8_t*>(std::calloc(bytes ? bytes : 1, 1))), size_(bytes) {
  if (!data_) throw std::bad_alloc();
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_dmi);
}

void Memory::b_transport(::tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t a = p.get_address();
  const unsigned len = p.get_data_length();
  if (a + len > size_ || a + len < a) {
    p.set_response_status(::tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (p.is_write())
    std::memcpy(data_.get() + a, p.get_data_ptr(), len);
  else
    std::memcpy(p.get_data_ptr(), data_.get() + a, len);
  delay += sc_core::sc_time(1, sc_core::SC_NS);
  p.set_dmi_allowed(true);
  p.set_response_status(::tlm::TLM_OK_RESPONSE);
}

bool Memory::get_dmi(::tlm::tlm_generic_payload&, ::tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(data_.get());
  dmi.set_start_address(0);
  dmi.set_end_address(size_ - 1);
  dmi.allow_read_write();
  return true;
}

Fabric::Fabric(sc_core::sc_module_name n) : sc_module(n), in("in"), out("out") {
  in.register_b_transport(this, &Fabric::b_transport);
  in.register_get_direct_mem_ptr(this, &Fabric::get_dmi);
}

unsigned Fabric::route(uint64_t a) const {
  const unsigned mem = static_cast<unsigned>(a >> kFabricMemShift) & 3;
  const unsigned core = static_cast<unsigned>(a >> kFabricCoreShift) & 0xF;
  return mem < 2 ? mem : 2 + core;
}

void Fabric::b_transport(int, ::tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t a = p.get_address();
  const unsigned t = route(a);
  if (t >= out.size()) {
    p.set_response_status(::tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  p.set_address(a & ((uint64_t{1} << kFabricCoreShift) - 1));
  out[t]->b_transport(p, delay);
  p.set_address(a);
}

bool Fabric::get_dmi(int, ::tlm::tlm_generic_payload& p, ::tlm::tlm_dmi& dmi) {
  const uint64_t a = p.get_address();
  const unsigned t = route(a);
  if (t >= out.size()) return false;
  const uint64_t base = a & ~((uint64_t{1} << kFabricCoreShift) - 1);
  p.set_address(a - base);
  const bool ok = out[t]->get_direct_mem_ptr(p, dmi);
  p.set_address(a);
  dmi.set_start_address(dmi.get_start_address() + base);
  dmi.set_end_address(dmi.get_end_address() + base);
  return ok;
}

}  // namespace axcore::tlm
