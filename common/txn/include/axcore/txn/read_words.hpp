// The words of a command descriptor and of a DMA BD that the device reads. The command processor
// fetches only these from CMD_MEM (docs/timing.md "Command processor", "Fetched words") and a
// compiled TXN writes only these (the host's AXI-Lite writes cost 3 cycles a word): no section of
// an absent unit, no walk dimension at or above ndims, no guard at or above nguards, no reserved
// word. The RTL, the TLM and common/ref never read the others. The TXN tracer reads descriptors by
// the same rule (axcore_tasks.cpp).
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <span>
#include <vector>

namespace axcore::txn {

// Per word of a walk section: read by the device (word 0 decides: ndims, nguards).
std::vector<bool> walk_read_words(const spec::Walk& w);

// Per word of the `words.size()` descriptor words a push to queue `q` fetches (datapath queues:
// header.words, LoadIMC and CTRL their struct's words): read by the device. The rule looks at
// the words alone (header flags, walk word 0, never the magic), so a refused descriptor is
// fetched by it too. Datapath: header words 0-1; each present walk's word 0, its used
// dimensions' sizes and strides (dimension 0 always), pad_value and its used guards (and so
// for the seg sections the feeders' segs name, IFD0's first, at most ifd_seg_walks); the main unit's fields
// (has_main); the DPU section's fields and the program up to header.words (has_dpu). LoadIMC and
// barrier: the words that hold fields.
std::vector<bool> queue_read_words(spec::Queue q, std::span<const uint32_t> words);

// The same for a descriptor told by its magic (datapath, LoadIMC, barrier); another magic: every
// word.
std::vector<bool> descriptor_read_words(std::span<const uint32_t> words);

// Per word of a DMA BD (spec::DmaBd::kWords): read by the device; words that hold no field are
// not, nor the address words when a DDR_PATCH writes them (`address_patched`).
std::vector<bool> bd_read_words(bool address_patched);

}  // namespace axcore::txn
