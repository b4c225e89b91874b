// Memories (DDR, L2, each core's L1) as TLM-2.0 targets with DMI, and the word fabric that the
// DMA engines reach them through. Fabric address = mem_sel << 44 | core << 40 | byte address;
// a DMA takes a DMI pointer to the whole memory once and then moves words by chunks.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

namespace axcore::tlm {

inline constexpr unsigned kFabricMemShift = 44, kFabricCoreShift = 40;
inline uint64_t fabric_addr(unsigned mem, unsigned core, uint64_t a) {
  return uint64_t{mem} << kFabricMemShift | uint64_t{core} << kFabricCoreShift | a;
}

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;
  Memory(sc_core::sc_module_name n, uint64_t bytes);
  std::span<uint8_t> bytes() { return {data_.get(), size_}; }

 private:
  void b_transport(::tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  bool get_dmi(::tlm::tlm_generic_payload& p, ::tlm::tlm_dmi& dmi);
  // calloc'd: the zero pages are mapped when first touched, so a 64 MiB DDR costs nothing at
  // construction (a zero-filled vector touched every page: most of a short run's time).
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> data_;
  uint64_t size_;
};

// Routes fabric addresses to targets: 0 = DDR, 1 = L2, 2 + c = L1 of core c.
class Fabric : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Fabric> in;
  tlm_utils::multi_passthrough_initiator_socket<Fabric> out;
  explicit Fabric(sc_core::sc_module_name n);

 private:
  unsigned route(uint64_t a) const;
  void b_transport(int id, ::tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  bool get_dmi(int id, ::tlm::tlm_generic_payload& p, ::tlm::tlm_dmi& dmi);
};

// A DMA's view of one memory through DMI: a raw window, or none (refused).
struct MemWindow {
  uint8_t* ptr = nullptr;
  uint64_t size = 0;
};

}  // namespace axcore::tlm
