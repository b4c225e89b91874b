// The core-tile bench the tile tests share (tests/rtl_core core and datapath tests): the
// Verilated tb_core driven through its register bus (CMD_MEM, DBG_MEM, queue pushes), tokens
// and CMDPROC events observed every cycle, and the datapath descriptor of a matmul.
#pragma once

#include <gtest/gtest.h>

#include <axcore/rtl/mm_layout.hpp>
#include <axcore/spec.hpp>
#include <span>
#include <utility>
#include <vector>

#include "Vtb_core.h"
#include "tb_util.hpp"

namespace rtlcore {

namespace core = axcore::spec::core;

inline constexpr uint32_t kLiWord = 0x10, kDpWord = 0x100, kBarWord = 0x40;

struct Tile {
  rtlcore::Sim<Vtb_core> sim;
  std::vector<uint32_t> tokens;
  std::vector<std::pair<bool, uint32_t>> cmd_events[4];  // (start, addr)
  std::vector<uint64_t> cmd_cycles[4];                   // the cycle of each cmd_events entry

  // Samples the outputs of the settled cycle (tokens, CMDPROC events).
  void observe() {
    if (sim->tok_valid_o) tokens.push_back(sim->tok_o);
    for (unsigned q = 0; q < 4; ++q) {
      // mon_task_t {valid, start, addr[15:0], bytes[31:0], word[31:0]} = 82 bits per queue
      const unsigned base = 82 * q;
      if (rtlcore::bit(sim->mon_cmd_o, base + 81)) {
        uint32_t addr = 0;
        for (unsigned i = 0; i < 16; ++i) addr |= uint32_t{rtlcore::bit(sim->mon_cmd_o, base + 64 + i)} << i;
        cmd_events[q].emplace_back(rtlcore::bit(sim->mon_cmd_o, base + 80), addr);
        cmd_cycles[q].push_back(sim.cycle());
      }
    }
  }
  // One cycle: inputs settled with the clock low, outputs observed, rising edge (two model
  // evaluations per cycle, as RtlDevice).
  void tick() {
    sim.low();
    observe();
    sim.high();
  }
  static uint64_t req(bool we, uint32_t off, uint32_t data) {
    return (uint64_t{we} << 52) | (uint64_t{off & 0xFFFFF} << 32) | data;
  }
  uint32_t access(bool we, uint32_t off, uint32_t data) {
    sim->reg_valid_i = 1;
    sim->reg_req_i = req(we, off, data);
    for (int i = 0; i < 1000; ++i) {
      sim.settle();
      if (sim->reg_rsp_valid_o) {
        const uint32_t r = sim->reg_rsp_rdata_o;
        EXPECT_TRUE(sim->reg_rsp_hit_o) << "offset 0x" << std::hex << off;
        tick();
        sim->reg_valid_i = 0;
        return r;
      }
      tick();
    }
    ADD_FAILURE() << "no register response at 0x" << std::hex << off;
    return 0;
  }
  void write(uint32_t off, uint32_t v) { access(true, off, v); }
  uint32_t read(uint32_t off) { return access(false, off, 0); }
  void write_cmd(uint32_t word, std::span<const uint32_t> w) {
    for (std::size_t i = 0; i < w.size(); ++i)
      write(core::CMD_MEM.offset + 4 * (word + static_cast<uint32_t>(i)), w[i]);
  }
  void write_l1(uint64_t addr, std::span<const uint8_t> bytes) {
    write(core::DBG_MEM_SEL.offset, 0);
    write(core::DBG_MEM_ADDR.offset, static_cast<uint32_t>(addr));
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
      uint32_t v = 0;
      for (std::size_t b = 0; b < 4; ++b) v |= uint32_t{bytes[i + b]} << (8 * b);
      write(core::DBG_MEM_DATA.offset, v);
    }
  }
  std::vector<uint8_t> read_l1(uint64_t addr, std::size_t n) {
    write(core::DBG_MEM_ADDR.offset, static_cast<uint32_t>(addr));
    std::vector<uint8_t> out;
    while (out.size() < n) {
      const uint32_t v = read(core::DBG_MEM_DATA.offset);
      for (std::size_t b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
    }
    return out;
  }
  void push(unsigned q, uint32_t start, uint32_t tag, bool token = true, uint32_t repeat = 0) {
    axcore::spec::QueuePush p{};
    p.start = start;
    p.tag = tag;
    p.token = token;
    p.repeat = repeat;
    write(core::Q_PUSH.at(q), p.encode_word());
  }
  bool wait_tokens(std::size_t n, int limit = 2000000) {
    for (int i = 0; i < limit && tokens.size() < n; ++i) tick();
    return tokens.size() >= n;
  }
};

inline axcore::spec::Token token_of(uint32_t w) { return axcore::spec::Token::decode_word(w); }

}  // namespace rtlcore
