/* Mailbox service loop, completion/error reporting and the status page. */
#include "axfw/firmware.h"

static uint64_t mb_word(const axfw* fw, uint32_t w) { return fw->mb + 4u * (uint64_t)w; }
static uint32_t mb_read(axfw* fw, uint32_t w) { return axfw_hal_ddr_read32(&fw->hal, mb_word(fw, w)); }
static void mb_write(axfw* fw, uint32_t w, uint32_t v) { axfw_hal_ddr_write32(&fw->hal, mb_word(fw, w), v); }

static uint64_t status_addr(const axfw* fw) { return fw->mb + AXFW_MB_STATUS_OFFSET(fw->sub_entries, fw->cmp_entries); }

static void status_publish(axfw* fw) {
  fw->counters[AXFW_ST_STATE] = fw->state;
  for (uint32_t i = 0; i < AXFW_STATUS_WORDS; ++i)
    axfw_hal_ddr_write32(&fw->hal, status_addr(fw) + 4u * i, fw->counters[i]);
  axfw_hal_barrier(&fw->hal);
}

uint32_t axfw_init(axfw* fw, const axfw_port* port, uint64_t mailbox, uint32_t sub_entries, uint32_t cmp_entries) {
  axfw_hal_init(&fw->hal, port);
  fw->mb = mailbox;
  fw->sub_entries = sub_entries ? sub_entries : 1u;
  fw->cmp_entries = cmp_entries ? cmp_entries : 1u;
  for (uint32_t i = 0; i < AXFW_STATUS_WORDS; ++i) fw->counters[i] = 0;
  axfw_identity id;
  axfw_hal_identity(&fw->hal, &id);
  fw->cores = id.cores;
  uint32_t* c = fw->counters;
  c[AXFW_ST_MAGIC] = AXFW_STATUS_MAGIC;
  c[AXFW_ST_FW_VERSION] = AXFW_FW_VERSION_MAJOR << 16 | AXFW_FW_VERSION_MINOR;
  c[AXFW_ST_SPEC_HASH_LO] = AXC_SPEC_HASH_LO;
  c[AXFW_ST_SPEC_HASH_HI] = AXC_SPEC_HASH_HI;
  c[AXFW_ST_DEV_HASH_LO] = id.spec_hash_lo;
  c[AXFW_ST_DEV_HASH_HI] = id.spec_hash_hi;
  c[AXFW_ST_DEV_ID] = id.id;
  c[AXFW_ST_CORES] = id.cores;
  const int match = id.id == AXC_ID_MAGIC && id.spec_hash_lo == AXC_SPEC_HASH_LO && id.spec_hash_hi == AXC_SPEC_HASH_HI;
  fw->state = match ? AXFW_STATE_READY : AXFW_STATE_FAULT;
  if (!match) {
    c[AXFW_ST_ERR_CODE] = AXFW_ERR_SPEC_HASH;
    c[AXFW_ST_ERR_DETAIL] = id.spec_hash_lo;
    c[AXFW_ST_ERR_ADDR_LO] = id.spec_hash_hi;
  }
  for (uint32_t w = 0; w < AXFW_MB_CTRL_WORDS; ++w) mb_write(fw, w, 0);
  mb_write(fw, AXFW_MB_VERSION_W, AXFW_MB_VERSION);
  mb_write(fw, AXFW_MB_SUB_ENTRIES_W, fw->sub_entries);
  mb_write(fw, AXFW_MB_CMP_ENTRIES_W, fw->cmp_entries);
  status_publish(fw);
  mb_write(fw, AXFW_MB_MAGIC_W, AXFW_MB_MAGIC); /* last: the host may attach once it sees it */
  axfw_hal_barrier(&fw->hal);
  return match ? AXFW_OK : AXFW_ERR_SPEC_HASH;
}

static void record_error(axfw* fw, uint32_t id, const axfw_error* e) {
  uint32_t* c = fw->counters;
  c[AXFW_ST_ERR_CODE] = e->code;
  c[AXFW_ST_ERR_ID] = id;
  c[AXFW_ST_ERR_WORD] = e->word;
  c[AXFW_ST_ERR_DETAIL] = e->detail;
  c[AXFW_ST_ERR_ADDR_LO] = (uint32_t)e->addr;
  c[AXFW_ST_ERR_ADDR_HI] = (uint32_t)(e->addr >> 32);
  c[AXFW_ST_ERR_INFO] = 0;
  if (e->code == AXFW_ERR_TOKEN_ERROR || e->code == AXFW_ERR_TOKEN_TIMEOUT) {
    const uint32_t col = (uint32_t)(e->addr >> 24) & 0xFFu, row = (uint32_t)(e->addr >> 16) & 0xFFu;
    if (row < AXC_FIRST_CORE_ROW + fw->cores) c[AXFW_ST_ERR_INFO] = axfw_hal_error_info(&fw->hal, col, row);
  }
  if (e->code == AXFW_ERR_TOKEN_TIMEOUT || e->code == AXFW_ERR_POLL_TIMEOUT) ++c[AXFW_ST_TIMEOUTS];
}

int axfw_step(axfw* fw) {
  ++fw->counters[AXFW_ST_HEARTBEAT];
  axfw_hal_barrier(&fw->hal);
  const uint32_t head = mb_read(fw, AXFW_MB_SUB_HEAD_W), tail = mb_read(fw, AXFW_MB_SUB_TAIL_W);
  const uint32_t chead = mb_read(fw, AXFW_MB_CMP_HEAD_W), ctail = mb_read(fw, AXFW_MB_CMP_TAIL_W);
  if (head == tail || chead - ctail >= fw->cmp_entries) return 0;
  const uint32_t s = AXFW_MB_CTRL_WORDS + AXFW_SUB_WORDS * (tail % fw->sub_entries);
  axfw_play_args a;
  const uint32_t id = mb_read(fw, s + AXFW_SUB_ID);
  a.txn_addr = (uint64_t)mb_read(fw, s + AXFW_SUB_TXN_HI) << 32 | mb_read(fw, s + AXFW_SUB_TXN_LO);
  a.txn_bytes = mb_read(fw, s + AXFW_SUB_TXN_BYTES);
  a.nbind = mb_read(fw, s + AXFW_SUB_NBIND);
  a.bind_addr = (uint64_t)mb_read(fw, s + AXFW_SUB_BIND_HI) << 32 | mb_read(fw, s + AXFW_SUB_BIND_LO);
  a.token_timeout_cycles = mb_read(fw, s + AXFW_SUB_TOKEN_TIMEOUT);
  a.poll_timeout_cycles = mb_read(fw, s + AXFW_SUB_POLL_TIMEOUT);
  a.cores = fw->cores;
  mb_write(fw, AXFW_MB_SUB_TAIL_W, tail + 1u); /* the entry is copied: the host may reuse it */

  ++fw->counters[AXFW_ST_SUBMITTED];
  axfw_play_stats st = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  axfw_error err = {AXFW_OK, 0, 0, 0};
  uint32_t rc;
  const uint64_t start = axfw_hal_cycle(&fw->hal);
  if (fw->state == AXFW_STATE_FAULT) {
    rc = err.code = AXFW_ERR_SPEC_HASH;
  } else {
    fw->state = AXFW_STATE_BUSY;
    status_publish(fw);
    rc = axfw_play(&fw->hal, &a, &st, &err);
    fw->state = AXFW_STATE_READY;
  }
  const uint32_t cycles = (uint32_t)(axfw_hal_cycle(&fw->hal) - start);
  fw->counters[AXFW_ST_OPS] += st.ops;
  fw->counters[AXFW_ST_TOKENS] += st.tokens;
  if (rc == AXFW_OK) {
    ++fw->counters[AXFW_ST_COMPLETED];
  } else {
    ++fw->counters[AXFW_ST_FAILED];
    record_error(fw, id, &err);
  }
  const uint32_t c = AXFW_MB_CTRL_WORDS + AXFW_SUB_WORDS * fw->sub_entries + AXFW_CMP_WORDS * (chead % fw->cmp_entries);
  mb_write(fw, c + AXFW_CMP_ID, id);
  mb_write(fw, c + AXFW_CMP_STATUS, rc);
  mb_write(fw, c + AXFW_CMP_WORD, err.word);
  mb_write(fw, c + AXFW_CMP_DETAIL, err.detail);
  mb_write(fw, c + AXFW_CMP_ADDR_LO, (uint32_t)err.addr);
  mb_write(fw, c + AXFW_CMP_ADDR_HI, (uint32_t)(err.addr >> 32));
  mb_write(fw, c + AXFW_CMP_OPS, st.ops);
  mb_write(fw, c + AXFW_CMP_CYCLES, cycles);
  status_publish(fw);
  mb_write(fw, AXFW_MB_CMP_HEAD_W, chead + 1u); /* after the entry and the status page */
  axfw_hal_barrier(&fw->hal);
  return 1;
}

void axfw_run(axfw* fw, uint32_t idle_cycles) {
  for (;;)
    if (!axfw_step(fw)) axfw_hal_wait(&fw->hal, idle_cycles);
}
