// RTL-internal types shared by the axcore blocks. Everything architectural (parameters, enums,
// descriptor structs, register offsets) comes from the generated axcore_pkg; this package only
// adds the widths and port structs derived from it. Not every block uses every width: the
// waiver covers this package only.
// verilator lint_off UNUSEDPARAM
package ax_rtl_pkg;
  import axcore_pkg::*;

  localparam int unsigned ROW_BYTES = L1_ROW_BYTES;                 // one int8x64 PWORD
  localparam int unsigned ROW_BITS = ROW_BYTES * 8;                 // 512
  localparam int unsigned ELEM_ROWS_MAX = 4;                        // int32/float32 PWORD
  localparam int unsigned ELEM_BITS = ELEM_ROWS_MAX * ROW_BITS;     // 2048
  localparam int unsigned L1_ROWS = L1_BYTES / ROW_BYTES;
  localparam int unsigned L1_ROW_AW = $clog2(L1_ROWS);
  localparam int unsigned L2_ROWS = L2_BYTES / ROW_BYTES;
  localparam int unsigned CMD_WORDS = CMD_MEM_BYTES / 4;
  localparam int unsigned CMD_AW = $clog2(CMD_WORDS);
  localparam int unsigned IMC_ROWS = IMC_TILES * IMC_TILE_ROWS;
  localparam int unsigned IMC_ROW_AW = $clog2(IMC_ROWS);
  localparam int unsigned TILE_AW = $clog2(IMC_TILES);
  localparam int unsigned F18_BITS = 18;
  localparam int unsigned WORD_BITS = 32;
  localparam int unsigned TOKEN_CNT_W = $clog2(TOKEN_FIFO_DEPTH + 1);

  typedef logic [ROW_BITS-1:0] row_t;
  typedef logic [ROW_BYTES-1:0] row_be_t;
  typedef logic [ELEM_BITS-1:0] elem_t;
  typedef logic [31:0] word_t;

  // A datapath stream element: one PWORD in its memory image (lane n of a w-byte dtype at bits
  // [8w*n +: 8w]) plus the IFD pad flag (the DWPU AVERAGE counts non-pad taps).
  typedef struct packed {
    logic  pad;
    elem_t data;
  } strm_t;

  // One row access to a banked memory (L1: IFD, ODR, LoadIMC, DWPU weights, DMA words, host
  // debug; L2: DMA words, host debug). Read data returns in the cycle after the grant.
  localparam int unsigned MEM_ROW_AW = 20;
  typedef struct packed {
    logic                  we;
    logic [MEM_ROW_AW-1:0] row;
    row_be_t               be;
    row_t                  wdata;
  } mem_req_t;

  // One DMA beat on the word fabric (docs/timing.md "Beat rule"): `nw` words from byte address
  // `addr` (a multiple of 4) inside one 64-byte row, or — a read of DDR — a burst of `nw` words
  // over `rows` rows up to the next 4 KiB boundary. Write data sits at its row position (word k
  // of the row at bits [32k +: 32]). A write burst to DDR is framed by `bfirst` (its first beat
  // carries the burst's `rows`) and `blast`. Every request gets one response per row (read) or
  // one ack (on-chip write beat; DDR write burst: the B), in request order per target.
  localparam int unsigned BEAT_NW_W = 11;  // 1..1024 words (a 4 KiB burst)
  typedef struct packed {
    mem_sel_e                 mem;
    logic [1:0]               core;
    logic                     we;
    logic [DDR_ADDR_BITS-1:0] addr;   // byte address of the first word, multiple of 4
    logic [BEAT_NW_W-1:0]     nw;     // words
    logic [6:0]               rows;   // DDR: rows of the burst (1..64)
    logic                     bfirst; // DDR write: first beat of a burst
    logic                     blast;  // DDR write: last beat of a burst
    row_t                     wdata;
  } word_req_t;

  // Words [off, off + n) of a row as a byte-enable mask.
  function automatic row_be_t beat_be(logic [3:0] off, logic [4:0] n);
    row_be_t m;
    for (int unsigned w = 0; w < 16; w++) m[4*w +: 4] = (w >= off && w < 32'(off) + 32'(n)) ? 4'hF : 4'h0;
    return m;
  endfunction

  // Register bus from the host bridge to the tiles: the request is held until the tile answers
  // with rsp_valid (exactly once, the cycle its side effects happen).
  typedef struct packed {
    logic        we;
    logic [19:0] addr;
    word_t       wdata;
  } reg_req_t;

  // A completion token offered to the shim token unit.
  typedef token_t tok_t;

  // Unit activity for perf counters and the watchdog (one-hot or all zero when idle).
  typedef struct packed {
    logic busy;       // active and not stalled on a stream
    logic stall_in;   // waits on an empty input stream
    logic stall_out;  // waits on a full output stream
  } act_t;

  // ---- Trace monitor events (sampled by the C++ harness after each rising edge). ----
  typedef struct packed {
    logic        valid;
    logic        start;      // 1: TASK_START, 0: TASK_DONE
    logic [15:0] addr;       // BD id / descriptor word address
    logic [31:0] bytes;      // TASK_DONE: bytes the task wrote
    logic [31:0] word;       // TASK_START: push word; TASK_DONE: token word (0 without token)
  } mon_task_t;

  typedef struct packed {
    logic                     valid;
    logic                     first;  // first beat of a MEM_WRITE record
    logic                     last;   // last beat: the record commits
    logic [DDR_ADDR_BITS-1:0] addr;   // byte address (L1/L2/DDR) or IMC tile * 4096 + row * 64
    logic [7:0]               nbytes; // bytes of this beat (4 for DMA words, 64 for rows)
    row_t                     data;   // beat data, little endian
  } mon_write_t;

  function automatic int unsigned dtype_rows(dtype_e d);
    unique case (d)
      DTYPE_INT8:    return 1;
      DTYPE_FLOAT16: return 2;
      DTYPE_INT32,
      DTYPE_FLOAT32: return 4;
      default:       return 1;
    endcase
  endfunction

  function automatic logic dtype_is_memory(dtype_e d);
    return d inside {DTYPE_INT8, DTYPE_INT32, DTYPE_FLOAT16, DTYPE_FLOAT32};
  endfunction

endpackage
// verilator lint_on UNUSEDPARAM
