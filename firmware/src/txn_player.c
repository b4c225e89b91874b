/* TXN player over DDR. Op layouts (words): write32 [0,0,addr,addr_hi,value,24];
 * maskwrite32/maskpoll32(_busy) [op,0,addr,addr_hi,value,mask,28]; blockwrite [1,col|row<<8,addr,
 * bytes,data...]; tct [0x80,16,dir|row<<8|col<<16,nrow<<8|ncol<<16|channel<<24]; ddr_patch [0x81,48,
 * 0,0,0,action,regaddr,0,arg_idx,0,arg_plus_lo,arg_plus_hi]; custom 0x82..0x84 [op,bytes,...];
 * noop [5]; preempt [6|level<<8]; loadpdi [8|id<<16,size,lo,hi]; scratchpad 4 words; update_reg 3. */
#include "axfw/txn_player.h"

enum {
  OP_WRITE = 0,
  OP_BLOCKWRITE = 1,
  OP_MASKWRITE = 3,
  OP_MASKPOLL = 4,
  OP_NOOP = 5,
  OP_PREEMPT = 6,
  OP_MASKPOLL_BUSY = 7,
  OP_LOADPDI = 8,
  OP_CREATE_SCRATCHPAD = 10,
  OP_UPDATE_REG = 12,
  OP_TCT = 0x80,
  OP_DDR_PATCH = 0x81,
  OP_READ_REGS = 0x82,
  OP_RECORD_TIMER = 0x83,
  OP_MERGE_SYNC = 0x84
};

typedef struct player {
  axfw_hal* h;
  const axfw_play_args* a;
  uint32_t nwords;
  axfw_error* err;
} player;

static uint32_t word_at(player* p, uint32_t i) { return axfw_hal_ddr_read32(p->h, p->a->txn_addr + 4u * (uint64_t)i); }

static uint32_t fail(player* p, uint32_t code, uint32_t word, uint32_t detail, uint64_t addr) {
  p->err->code = code;
  p->err->word = word;
  p->err->detail = detail;
  p->err->addr = addr;
  return code;
}

/* Length in words of the op at `pos`, checked as common/txn's decoder checks it; 0 on error. */
static uint32_t op_length(player* p, uint32_t pos) {
  const uint32_t w0 = word_at(p, pos), opc = w0 & 0xFFu;
  uint32_t n = 0;
  switch (opc) {
    case OP_WRITE: n = 6; break;
    case OP_MASKWRITE:
    case OP_MASKPOLL:
    case OP_MASKPOLL_BUSY: n = 7; break;
    case OP_NOOP:
    case OP_PREEMPT: n = 1; break;
    case OP_LOADPDI:
    case OP_CREATE_SCRATCHPAD: n = 4; break;
    case OP_UPDATE_REG: n = 3; break;
    case OP_BLOCKWRITE:
    case OP_TCT:
    case OP_DDR_PATCH:
    case OP_READ_REGS:
    case OP_RECORD_TIMER:
    case OP_MERGE_SYNC: {
      const uint32_t at = opc == OP_BLOCKWRITE ? 3u : 1u;
      if (pos + at >= p->nwords) {
        fail(p, AXFW_ERR_TXN_LENGTH, pos, 0, 0);
        return 0;
      }
      const uint32_t bytes = word_at(p, pos + at);
      const uint32_t fixed = opc == OP_TCT ? 16u : opc == OP_DDR_PATCH ? 48u : 0u;
      const uint32_t least = opc == OP_BLOCKWRITE ? 16u : 8u;
      if ((fixed && bytes != fixed) || bytes < least || bytes % 4u) {
        fail(p, AXFW_ERR_TXN_LENGTH, pos + at, bytes, 0);
        return 0;
      }
      n = bytes / 4u;
      break;
    }
    default: fail(p, AXFW_ERR_TXN_OPCODE, pos, w0, 0); return 0;
  }
  if ((uint64_t)pos + n > p->nwords) {
    fail(p, AXFW_ERR_TXN_LENGTH, pos, n, 0);
    return 0;
  }
  if (opc == OP_WRITE || opc == OP_MASKWRITE || opc == OP_MASKPOLL || opc == OP_MASKPOLL_BUSY) {
    const uint32_t size = word_at(p, pos + n - 1);
    if (size != 4u * n) {
      fail(p, AXFW_ERR_TXN_LENGTH, pos + n - 1, size, 0);
      return 0;
    }
  }
  return n;
}

static uint32_t check(player* p) {
  if (p->a->txn_bytes % 4u || p->a->txn_bytes / 4u < 4u) return fail(p, AXFW_ERR_TXN_HEADER, 0, p->a->txn_bytes, 0);
  const uint32_t w0 = word_at(p, 0), w1 = word_at(p, 1), nops = word_at(p, 2), bytes = word_at(p, 3);
  if (bytes != p->a->txn_bytes) return fail(p, AXFW_ERR_TXN_HEADER, 3, bytes, 0);
  const uint32_t dev_gen = (w0 >> 16) & 0xFFu, rows = w0 >> 24, major = w0 & 0xFFu;
  const uint32_t cols = w1 & 0xFFu, mem_rows = (w1 >> 8) & 0xFFu;
  if (dev_gen != AXC_TXN_DEV_GEN || rows != AXC_FIRST_CORE_ROW + p->a->cores || cols != AXC_COLUMNS ||
      mem_rows != AXC_MEM_TILE_ROWS || major != AXC_TXN_MAJOR)
    return fail(p, AXFW_ERR_TXN_DEVICE, 0, w0, w1);
  uint32_t pos = 4, ops = 0;
  while (pos < p->nwords) {
    const uint32_t n = op_length(p, pos);
    if (!n) return p->err->code;
    pos += n;
    ++ops;
  }
  if (ops != nops) return fail(p, AXFW_ERR_TXN_COUNT, 2, ops, nops);
  return AXFW_OK;
}

static uint64_t addr64(player* p, uint32_t pos) { return (uint64_t)word_at(p, pos + 3) << 32 | word_at(p, pos + 2); }

static uint32_t patch(player* p, uint32_t pos, axfw_play_stats* st) {
  const uint32_t regaddr = word_at(p, pos + 6), arg = word_at(p, pos + 8);
  const uint64_t plus = (uint64_t)word_at(p, pos + 11) << 32 | word_at(p, pos + 10);
  if (arg >= p->a->nbind) return fail(p, AXFW_ERR_PATCH_UNBOUND, pos, arg, regaddr);
  const uint64_t e = p->a->bind_addr + 4u * AXFW_BINDING_WORDS * (uint64_t)arg;
  const uint64_t base = (uint64_t)axfw_hal_ddr_read32(p->h, e + 4) << 32 | axfw_hal_ddr_read32(p->h, e);
  const uint64_t size = (uint64_t)axfw_hal_ddr_read32(p->h, e + 12) << 32 | axfw_hal_ddr_read32(p->h, e + 8);
  if (plus >= size && !(plus == 0 && size == 0)) return fail(p, AXFW_ERR_PATCH_RANGE, pos, arg, plus);
  const uint64_t v = base + plus;
  axfw_hal_write32(p->h, regaddr, (uint32_t)v);
  axfw_hal_write32(p->h, (uint64_t)regaddr + 4u, (uint32_t)(v >> 32));
  ++st->patches;
  return AXFW_OK;
}

static uint32_t tct(player* p, uint32_t pos, axfw_play_stats* st) {
  const uint32_t w2 = word_at(p, pos + 2), w3 = word_at(p, pos + 3);
  const uint32_t dir = (w2 & 0xFFu) == 0 ? 0u : 1u, row0 = (w2 >> 8) & 0xFFu, col0 = (w2 >> 16) & 0xFFu;
  const uint32_t nrow = (w3 >> 8) & 0xFFu, ncol = (w3 >> 16) & 0xFFu, channel = (w3 >> 24) & 0xFFu;
  const uint64_t timeout = p->a->token_timeout_cycles ? p->a->token_timeout_cycles : AXFW_DEFAULT_TOKEN_TIMEOUT;
  for (uint32_t c = col0; c < col0 + (ncol ? ncol : 1u); ++c) {
    for (uint32_t r = row0; r < row0 + (nrow ? nrow : 1u); ++r) {
      uint32_t token = 0;
      const int rc = axfw_hal_wait_token(p->h, c, r, dir, channel, timeout, &token);
      const uint64_t chan = (uint64_t)c << 24 | (uint64_t)r << 16 | dir << 8 | channel;
      if (rc == -1) return fail(p, AXFW_ERR_TOKEN_TIMEOUT, pos, 0, chan);
      if (rc == -2) return fail(p, AXFW_ERR_STASH_FULL, pos, 0, chan);
      if (axfw_field(token, AXC_TOKEN_ERROR_LSB, AXC_TOKEN_ERROR_WIDTH))
        return fail(p, AXFW_ERR_TOKEN_ERROR, pos, token, chan);
      ++st->tokens;
    }
  }
  ++st->waits;
  return AXFW_OK;
}

/* Whether `addr` is a DMA queue register or a core task queue (Q_PUSH) register. */
static int is_queue_register(uint64_t addr) {
  if (!axc_addr_in_window(addr)) return 0; /* above the register window: as the tracer, no tile register */
  const uint32_t off = axc_addr_offset(addr), kind = axc_tile_kind(axc_addr_row(addr));
  if (kind == AXC_TILE_KIND_SHIM)
    return axc_reg_element(off, AXC_SHIM_DMA_S2MM_QUEUE_OFFSET, AXC_SHIM_DMA_S2MM_QUEUE_COUNT,
                           AXC_SHIM_DMA_S2MM_QUEUE_STRIDE) ||
           axc_reg_element(off, AXC_SHIM_DMA_MM2S_QUEUE_OFFSET, AXC_SHIM_DMA_MM2S_QUEUE_COUNT,
                           AXC_SHIM_DMA_MM2S_QUEUE_STRIDE);
  if (kind == AXC_TILE_KIND_MEM)
    return axc_reg_element(off, AXC_MEM_DMA_S2MM_QUEUE_OFFSET, AXC_MEM_DMA_S2MM_QUEUE_COUNT,
                           AXC_MEM_DMA_S2MM_QUEUE_STRIDE) ||
           axc_reg_element(off, AXC_MEM_DMA_MM2S_QUEUE_OFFSET, AXC_MEM_DMA_MM2S_QUEUE_COUNT,
                           AXC_MEM_DMA_MM2S_QUEUE_STRIDE);
  return axc_reg_element(off, AXC_CORE_DMA_S2MM_QUEUE_OFFSET, AXC_CORE_DMA_S2MM_QUEUE_COUNT,
                         AXC_CORE_DMA_S2MM_QUEUE_STRIDE) ||
         axc_reg_element(off, AXC_CORE_DMA_MM2S_QUEUE_OFFSET, AXC_CORE_DMA_MM2S_QUEUE_COUNT,
                         AXC_CORE_DMA_MM2S_QUEUE_STRIDE) ||
         axc_reg_element(off, AXC_CORE_Q_PUSH_OFFSET, AXC_CORE_Q_PUSH_COUNT, AXC_CORE_Q_PUSH_STRIDE);
}

/* Only a write32 pushes (the runtime player's and the TXN tracer's rule): a maskwrite32 or a
 * blockwrite reaching a queue register is refused before the op touches the device. */
static uint32_t refuse_queue_write(player* p, uint32_t pos, uint64_t addr, uint32_t words) {
  for (uint32_t i = 0; i < words; ++i)
    if (is_queue_register(addr + 4u * i))
      return fail(p, AXFW_ERR_TXN_UNSUPPORTED, pos, word_at(p, pos) & 0xFFu, addr + 4u * i);
  return AXFW_OK;
}

static uint32_t play_op(player* p, uint32_t pos, axfw_play_stats* st) {
  const uint32_t opc = word_at(p, pos) & 0xFFu;
  switch (opc) {
    case OP_WRITE:
      axfw_hal_write32(p->h, addr64(p, pos), word_at(p, pos + 4));
      ++st->writes;
      return AXFW_OK;
    case OP_MASKWRITE: {
      const uint64_t a = addr64(p, pos);
      const uint32_t v = word_at(p, pos + 4), m = word_at(p, pos + 5);
      if (refuse_queue_write(p, pos, a, 1u) != AXFW_OK) return p->err->code;
      axfw_hal_write32(p->h, a, (axfw_hal_read32(p->h, a) & ~m) | (v & m));
      ++st->mask_writes;
      return AXFW_OK;
    }
    case OP_MASKPOLL:
    case OP_MASKPOLL_BUSY: {
      const uint64_t a = addr64(p, pos);
      const uint64_t timeout = p->a->poll_timeout_cycles ? p->a->poll_timeout_cycles : AXFW_DEFAULT_POLL_TIMEOUT;
      uint32_t last = 0;
      if (axfw_hal_poll(p->h, a, word_at(p, pos + 4), word_at(p, pos + 5), timeout, &last))
        return fail(p, AXFW_ERR_POLL_TIMEOUT, pos, last, a);
      ++st->polls;
      return AXFW_OK;
    }
    case OP_BLOCKWRITE: {
      const uint32_t addr = word_at(p, pos + 2), n = word_at(p, pos + 3) / 4u - 4u;
      if (refuse_queue_write(p, pos, addr, n) != AXFW_OK) return p->err->code;
      for (uint32_t i = 0; i < n; ++i) axfw_hal_write32(p->h, (uint64_t)addr + 4u * i, word_at(p, pos + 4 + i));
      st->block_words += n;
      return AXFW_OK;
    }
    case OP_DDR_PATCH: return patch(p, pos, st);
    case OP_TCT: return tct(p, pos, st);
    case OP_NOOP:
    case OP_PREEMPT: ++st->noops; return AXFW_OK;
    default: return fail(p, AXFW_ERR_TXN_UNSUPPORTED, pos, opc, 0);
  }
}

uint32_t axfw_play(axfw_hal* h, const axfw_play_args* a, axfw_play_stats* st, axfw_error* err) {
  player p = {h, a, a->txn_bytes / 4u, err};
  *st = (axfw_play_stats){0, 0, 0, 0, 0, 0, 0, 0, 0};
  *err = (axfw_error){AXFW_OK, 0, 0, 0};
  if (a->nbind > AXFW_MAX_BINDINGS) return fail(&p, AXFW_ERR_SUBMISSION, 0, a->nbind, 0);
  const uint32_t rc = check(&p);
  if (rc != AXFW_OK) return rc;
  for (uint32_t pos = 4; pos < p.nwords;) {
    const uint32_t n = op_length(&p, pos);
    const uint32_t r = play_op(&p, pos, st);
    if (r != AXFW_OK) return r;
    ++st->ops;
    pos += n;
  }
  return AXFW_OK;
}
