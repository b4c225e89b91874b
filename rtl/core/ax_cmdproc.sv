// Command processor: the four core queues (MVMEXE, DWPU, LOADIMC, CTRL), each a ring of
// queue_depth push words run in order. A queue's head task fetches its descriptor from CMD_MEM
// (one shared read port, one word per cycle, lowest queue first; only the words the device reads,
// ax_fetch_next: of a datapath's header.words words the present units' used words, LoadIMC and
// barrier the words that hold fields), is validated the cycle after its last word arrived and starts in that
// cycle (TASK_START) when its resources are free: LoadIMC overlaps a running MVMEXE task (and
// the reverse) only when ax_imc_apart finds them apart (same matrix_id, disjoint tile spans). A
// task ends (TASK_DONE) when its unit is done, after repeat + 1 runs; the token follows the next
// cycle (always on an error). A refused descriptor or a unit fault ends the task with an error
// token and one error report. Built units: MVMEXE (IFD0, IFD1, MVM, DPU,
// ODR; the DPU program words go to the datapath as they arrive and come back validated),
// LoadIMC, barriers, the DWPU datapath (IFD0, IFD1, DWPU, DPU, ODR the same way, with its own
// descriptor buffer, overlapping every other queue).
// Prefetch (docs/timing.md "Command processor"): every queue has two descriptor slots (and the
// DPUs two program banks). While the head task checks, runs or offers its token, the task queued
// behind it fetches its descriptor into the other slot; when the head pops, that task checks
// the next cycle (its words are used only then, after its predecessor finished). A host write
// into CMD_MEM over a word a fetch already read (a completed prefetch: any of its words) drops
// that fetch: it is fetched again, so a task always runs the descriptor words written before it
// was fetched. A prefetch that runs past CMD_MEM is left to the head fetch (which reports it).
module ax_cmdproc
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Row   = FIRST_CORE_ROW,
  parameter int unsigned Cores = CORES
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     clr_i,
  // host queue registers
  input  logic [CORE_QUEUES-1:0]   push_i,
  input  queue_push_t              push_word_i,
  input  logic [CORE_QUEUES-1:0]   q_reset_i,
  // CMD_MEM read port (data the cycle after rd_o)
  output logic                     cmd_rd_o,
  output logic [CMD_AW-1:0]        cmd_addr_o,
  input  word_t                    cmd_data_i,
  // CMD_MEM host writes (a write over words a fetch already read drops that fetch)
  input  logic                     cmd_wr_i,
  input  logic [CMD_AW-1:0]        cmd_wr_addr_i,
  // MVMEXE datapath
  output logic                     dp_start_o,
  output logic                     dp_abort_o,
  output walk_t                    dp_ifd0_o,
  output mvm_desc_t                dp_mvm_o,
  output walk_t                    dp_odr_o,
  output dp_header_t               dp_hdr_o,        // the unit set (has_ifd1, has_main, has_dpu)
  output walk_t                    dp_ifd1_o,
  output walk_t [IFD_SEG_WALKS-1:0] dp_segs_o,       // the seg sections (the IFDs' later segments)
  output dpu_desc_t                dp_dpu_o,
  output logic                     dp_prog_wr_o,    // every fetched MVMEXE descriptor word
  output logic [15:0]              dp_prog_idx_o,
  output word_t                    dp_prog_data_o,
  input  error_code_e              dp_prog_code_i,  // validation of the DPU program (ax_dpu_prog)
  output logic                     dp_prog_bank_o,  // program bank the fetched words go to (both datapaths)
  output dpu_desc_t                dp_prog_dpu_o,   // the fetched descriptor's DPU section (validation)
  output logic                     dp_prog_in1_o,   // and its has_ifd1
  output logic                     dp_run_bank_o,   // program bank of the MVMEXE head task
  input  logic                     dp_done_i,
  input  unit_err_t                dp_err_i,
  input  logic [31:0]              dp_bytes_i,
  input  logic                     wdog_fire_i,
  // DWPU datapath
  output logic                     dw_start_o,
  output logic                     dw_abort_o,
  output dp_header_t               dw_hdr_o,         // the unit set (has_ifd1, has_main, has_dpu)
  output walk_t                    dw_ifd0_o,
  output walk_t                    dw_ifd1_o,
  output walk_t [IFD_SEG_WALKS-1:0] dw_segs_o,
  output dwpu_desc_t               dw_dwpu_o,
  output dpu_desc_t                dw_dpu_o,
  output walk_t                    dw_odr_o,
  output logic                     dw_prog_wr_o,     // every fetched DWPU descriptor word (dp_prog_idx/data)
  input  error_code_e              dw_prog_code_i,   // validation of its DPU program
  output logic                     dw_run_bank_o,    // program bank of the DWPU head task
  input  logic                     dw_done_i,
  input  unit_err_t                dw_err_i,
  input  logic [31:0]              dw_bytes_i,
  input  logic                     dw_wdog_fire_i,
  // LoadIMC
  output logic                     li_start_o,
  output logic                     li_abort_o,
  output loadimc_desc_t            li_desc_o,
  input  logic                     li_done_i,
  input  unit_err_t                li_err_i,
  // barrier
  output logic                     bar_arrive_o,
  output logic [7:0]               bar_id_o,
  output logic [7:0]               bar_mask_o,
  input  logic                     bar_release_i,
  // token and error report
  output logic                     tok_valid_o,
  input  logic                     tok_ready_i,
  output token_t                   tok_o,
  output logic                     err_valid_o,
  output error_code_e              err_code_o,
  output logic [4:0]               err_channel_o,
  output logic [15:0]              err_detail_o,
  output logic [31:0]              err_addr_o,
  // status
  output logic [CORE_QUEUES-1:0][4:0]  q_pending_o,
  output logic [CORE_QUEUES-1:0]       q_busy_o,
  output logic [CORE_QUEUES-1:0]       q_error_o,
  output logic [CORE_QUEUES-1:0][15:0] q_done_o,
  output logic [CORE_QUEUES-1:0]       q_task_ok_o,     // perf: a task completed without error
  output mon_task_t [CORE_QUEUES-1:0]  mon_o
);
  localparam int unsigned NQ = CORE_QUEUES;
  localparam int unsigned DpWords = DATAPATH_DESC_PROGRAM_WORD;   // fixed part: 140 words
  localparam int unsigned DpAw    = $clog2(DpWords);
  localparam int unsigned QCntW = $clog2(QUEUE_DEPTH + 1);

  typedef enum logic [2:0] {S_IDLE, S_FETCH, S_CHECK, S_RUN, S_TOKEN} state_e;
  // the prefetch of the task behind the head: none, being fetched, in its slot, or left to the
  // head fetch (it runs past CMD_MEM)
  typedef enum logic [1:0] {PF_NONE, PF_BUSY, PF_DONE, PF_BAD} pf_e;

  // ---- queues: a FIFO of push words each; the head and the entry behind it are visible ----
  logic [NQ-1:0]            q_valid, q_pop, q_in_ready, q_two;
  queue_push_t [NQ-1:0]     q_head, q_next;
  logic [NQ-1:0][QCntW-1:0] q_cnt;
  logic [NQ-1:0]            ovf;

  for (genvar q = 0; q < NQ; q++) begin : g_queue
    ax_fifo #(.T(queue_push_t), .Depth(QUEUE_DEPTH), .CheckIn(1'b0), .Peek(1'b1)) u_queue (  // a full queue drops a push
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .clr_i       (clr_i || q_reset_i[q]),
      .in_valid_i  (push_i[q]),
      .in_ready_o  (q_in_ready[q]),
      .in_data_i   (push_word_i),
      .out_valid_o (q_valid[q]),
      .out_ready_i (q_pop[q]),
      .out_data_o  (q_head[q]),
      .out_next_o  (q_next[q]),
      .count_o     (q_cnt[q])
    );
  end
  always_comb begin
    for (int unsigned q = 0; q < NQ; q++) begin
      q_two[q] = (32'(q_cnt[q]) >= 2);
      ovf[q]   = push_i[q] && !q_in_ready[q];   // reported as QUEUE_OVERFLOW
    end
  end

  state_e [NQ-1:0]       st_q, st_d;
  logic [NQ-1:0][7:0]    rep_q, rep_d;
  logic [NQ-1:0]         err_q, err_d, lasterr_q, lasterr_d;
  error_code_e [NQ-1:0]  code_q, code_d;
  logic [NQ-1:0][15:0]   done_q, done_d;
  pf_e [NQ-1:0]          pf_q, pf_d;
  logic [NQ-1:0]         cur_q, cur_d;      // the head task's descriptor slot
  logic [NQ-1:0][15:0]   pf_words_q, pf_words_d;

  // ---- fetch engine ----
  logic               f_busy_q, f_busy_d, f_rsp_q, f_slot_q, f_slot_d, f_dirty_q, f_dirty_d;
  logic [1:0]         f_q_q, f_q_d;
  logic [15:0]        f_start_q, f_start_d;
  logic [15:0]        f_idx_q, f_idx_d, f_total_q, f_total_d, f_rsp_idx_q, f_next;
  logic [1:0][DpWords-1:0][31:0] dp_buf_q;
  logic [1:0][DpWords-1:0][31:0] dw_buf_q;   // the DWPU queue's descriptors
  logic [1:0][7:0][31:0] li_buf_q;
  logic [1:0][3:0][31:0] bar_buf_q;
  logic [NQ-1:0]      f_done;      // the queue's last word arrived this cycle (a clean fetch)
  logic [NQ-1:0]      f_range;     // descriptor runs past CMD_MEM
  logic [NQ-1:0]      f_end;       // the engine ended the queue's fetch (clean, range or dropped)
  // verilator lint_off UNUSEDSIGNAL
  dp_header_t         rsp_hdr;     // the word arriving, read as the first word of a datapath header
  // verilator lint_on UNUSEDSIGNAL
  assign rsp_hdr = dp_header_t'({{(32 * (DP_HEADER_WORDS - 1)){1'b0}}, cmd_data_i});

  function automatic logic [15:0] fixed_words(logic [1:0] q);
    unique case (q)
      QUEUE_LOADIMC: return 16'(LOADIMC_DESC_WORDS);
      QUEUE_CTRL:    return 16'(BARRIER_DESC_WORDS);
      default:   return 16'(DpWords);
    endcase
  endfunction

  // A queue asks the engine for its head (S_FETCH) or for the task behind a head past its fetch.
  logic [NQ-1:0] f_req, f_req_pf;
  logic [1:0]  f_pick;
  logic        f_any;
  always_comb begin
    f_any  = 1'b0;
    f_pick = '0;
    for (int q = NQ - 1; q >= 0; q--) begin
      logic mine;
      mine        = f_busy_q && f_q_q == 2'(q);
      f_req_pf[q] = !mine && pf_q[q] == PF_NONE && q_two[q] &&
                    (st_q[q] == S_CHECK || st_q[q] == S_RUN || st_q[q] == S_TOKEN);
      f_req[q]    = (!mine && st_q[q] == S_FETCH) || f_req_pf[q];
      if (f_req[q]) begin
        f_any  = 1'b1;
        f_pick = 2'(q);
      end
    end
  end

  logic [31:0] f_start;
  logic [15:0] wr_rel;
  logic        f_hit;
  assign f_start    = 32'(f_start_q);
  assign cmd_rd_o   = f_busy_q && (f_idx_q < f_total_q);
  assign cmd_addr_o = CMD_AW'(f_start + 32'(f_idx_q));
  // a host write over a word the fetch already asked for (this cycle's read sees the old word)
  assign wr_rel     = 16'(32'(cmd_wr_addr_i) - f_start);
  assign f_hit      = cmd_wr_i && f_busy_q && 32'(cmd_wr_addr_i) >= f_start &&
                      32'(wr_rel) < 32'(f_idx_q) + 32'(cmd_rd_o);

  // What the fetch knows of its descriptor when it picks the next word: the words arrived in the
  // fetching slot, and the one arriving this cycle (a header or a walk's word 0 decides the words
  // after the next one, ax_fetch_next).
  // word w of the descriptor being fetched: arriving this cycle, or in the fetching slot
  function automatic word_t fetched_word(int unsigned w);
    if (f_rsp_q && f_rsp_idx_q == 16'(w)) return cmd_data_i;
    return (f_q_q == QUEUE_DWPU) ? dw_buf_q[f_slot_q][w] : dp_buf_q[f_slot_q][w];
  endfunction
  logic [5:0][31:0]         nx_w0;   // header, ifd0, ifd1, odr, seg0, seg1 word 0
  logic [15:0]              nx_total;
  always_comb begin
    nx_total = f_total_q;   // a datapath's header.words from the cycle its header arrives
    nx_w0    = '0;
    if (cmd_rd_o) begin     // (else ax_fetch_next looks at nothing)
      if (f_rsp_q && f_rsp_idx_q == '0 && f_q_q != QUEUE_LOADIMC && f_q_q != QUEUE_CTRL)
        nx_total = (rsp_hdr.words == '0) ? 16'd1 : rsp_hdr.words;
      nx_w0[0] = fetched_word(DATAPATH_DESC_HEADER_WORD);
      nx_w0[1] = fetched_word(DATAPATH_DESC_IFD0_WORD);
      nx_w0[2] = fetched_word(DATAPATH_DESC_IFD1_WORD);
      nx_w0[3] = fetched_word(DATAPATH_DESC_ODR_WORD);
      nx_w0[4] = fetched_word(DATAPATH_DESC_SEG0_WORD);
      nx_w0[5] = fetched_word(DATAPATH_DESC_SEG1_WORD);
    end
  end
  ax_fetch_next u_fetch_next (
    .active_i(cmd_rd_o),
    .queue_i (f_q_q),
    .idx_i   (f_idx_q),
    .total_i (nx_total),
    .hdr_w0_i (nx_w0[0]),
    .ifd0_w0_i(nx_w0[1]),
    .ifd1_w0_i(nx_w0[2]),
    .odr_w0_i (nx_w0[3]),
    .seg_w0_i ({nx_w0[5], nx_w0[4]}),
    .next_o  (f_next)
  );

  always_comb begin
    f_busy_d  = f_busy_q;
    f_q_d     = f_q_q;
    f_slot_d  = f_slot_q;
    f_start_d = f_start_q;
    f_dirty_d = f_dirty_q || f_hit;
    f_idx_d   = f_idx_q;
    f_total_d = f_total_q;
    f_done    = '0;
    f_range   = '0;
    f_end     = '0;
    if (!f_busy_q && f_any) begin
      f_busy_d  = 1'b1;
      f_q_d     = f_pick;
      // the head fetches into its own slot, the task behind it into the other one
      f_slot_d  = f_req_pf[f_pick] ? !cur_q[f_pick] : cur_q[f_pick];
      f_start_d = f_req_pf[f_pick] ? q_next[f_pick].start : q_head[f_pick].start;
      f_dirty_d = 1'b0;
      f_idx_d   = '0;
      f_total_d = fixed_words(f_pick);
    end
    if (f_busy_q) begin
      if (cmd_rd_o) f_idx_d = f_next;   // the next word the device reads (ax_fetch_next)
      if (f_start + 32'(f_total_q) > 32'(CMD_WORDS)) begin
        f_range[f_q_q] = !f_dirty_d;   // CMD_RANGE: nothing more is read
        f_end[f_q_q]   = 1'b1;
        f_busy_d       = 1'b0;
      end else if (f_rsp_q) begin
        // the word itself goes into its slot in the register below (f_store)
        // the header's length decides how many words follow (at least the header)
        if (f_q_q != QUEUE_LOADIMC && f_q_q != QUEUE_CTRL && f_rsp_idx_q == '0)
          f_total_d = (rsp_hdr.words == '0) ? 16'd1 : rsp_hdr.words;
        if (f_idx_q >= f_total_d && !(f_rsp_idx_q == '0 && f_q_q != QUEUE_LOADIMC &&
            f_q_q != QUEUE_CTRL && f_start + 32'(f_total_d) > 32'(CMD_WORDS))) begin
          f_done[f_q_q] = !f_dirty_d;   // a fetch a host write overtook is dropped (and asked again)
          f_end[f_q_q]  = 1'b1;
          f_busy_d      = 1'b0;
        end
      end
    end
    // a queue reset or clear drops the fetch of that queue
    if (clr_i || (f_busy_q && q_reset_i[f_q_q])) f_busy_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_busy_q    <= 1'b0;
      f_q_q       <= '0;
      f_slot_q    <= 1'b0;
      f_start_q   <= '0;
      f_dirty_q   <= 1'b0;
      f_idx_q     <= '0;
      f_total_q   <= '0;
      f_rsp_q     <= 1'b0;
      f_rsp_idx_q <= '0;
    end else begin
      f_busy_q    <= f_busy_d;
      f_q_q       <= f_q_d;
      f_slot_q    <= f_slot_d;
      f_start_q   <= f_start_d;
      f_dirty_q   <= f_dirty_d;
      f_idx_q     <= f_idx_d;
      f_total_q   <= f_total_d;
      f_rsp_q     <= cmd_rd_o && f_busy_d;
      f_rsp_idx_q <= f_idx_q;
    end
  end
  // The arriving word into its descriptor slot, written in the register itself: the fetch's
  // next-state logic reads the host's register writes (f_hit), which change in cycles the tile
  // is idle, so the descriptor buffers stay out of it (docs/rtl.md).
  logic f_store;
  assign f_store = f_busy_q && f_rsp_q && !(f_start + 32'(f_total_q) > 32'(CMD_WORDS));
  always_ff @(posedge clk_i) begin
    if (f_store) begin
      unique case (f_q_q)
        QUEUE_LOADIMC: if (f_rsp_idx_q < 16'd8) li_buf_q[f_slot_q][f_rsp_idx_q[2:0]] <= cmd_data_i;
        QUEUE_CTRL:    if (f_rsp_idx_q < 16'd4) bar_buf_q[f_slot_q][f_rsp_idx_q[1:0]] <= cmd_data_i;
        QUEUE_MVMEXE:  if (f_rsp_idx_q < 16'(DpWords)) dp_buf_q[f_slot_q][f_rsp_idx_q[DpAw-1:0]] <= cmd_data_i;
        default:       if (f_rsp_idx_q < 16'(DpWords)) dw_buf_q[f_slot_q][f_rsp_idx_q[DpAw-1:0]] <= cmd_data_i;
      endcase
    end
  end

  // ---- descriptor views (the head task's slot) and checks ----
  dp_header_t    hdr;
  walk_t         w_ifd0, w_ifd1, w_odr;
  walk_t [IFD_SEG_WALKS-1:0] w_segs, dw_segs;
  mvm_desc_t     mvm;
  dpu_desc_t     dpu;
  loadimc_desc_t li;
  barrier_desc_t bar;
  assign hdr    = dp_header_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_HEADER_WORD +: DP_HEADER_WORDS]);
  assign w_ifd0 = walk_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_IFD0_WORD +: WALK_WORDS]);
  assign w_ifd1 = walk_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_IFD1_WORD +: WALK_WORDS]);
  assign w_odr  = walk_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_ODR_WORD +: WALK_WORDS]);
  assign w_segs = {walk_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_SEG1_WORD +: WALK_WORDS]),
                   walk_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_SEG0_WORD +: WALK_WORDS])};
  assign dp_segs_o = w_segs;
  assign dpu    = dpu_desc_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_DPU_WORD +: DPU_DESC_WORDS]);
  assign mvm    = mvm_desc_t'(dp_buf_q[cur_q[QUEUE_MVMEXE]][DATAPATH_DESC_MVM_WORD +: MVM_DESC_WORDS]);
  assign li     = loadimc_desc_t'(li_buf_q[cur_q[QUEUE_LOADIMC]]);
  assign bar    = barrier_desc_t'(bar_buf_q[cur_q[QUEUE_CTRL]]);
  assign dp_ifd0_o = w_ifd0;
  assign dp_odr_o  = w_odr;
  assign dp_mvm_o  = mvm;
  assign dp_hdr_o  = hdr;
  assign dp_ifd1_o = w_ifd1;
  assign dp_dpu_o  = dpu;
  assign dp_prog_wr_o   = f_busy_q && f_rsp_q && f_q_q == QUEUE_MVMEXE;
  assign dp_prog_idx_o  = f_rsp_idx_q;
  assign dp_prog_data_o = cmd_data_i;
  assign dp_prog_bank_o = f_slot_q;
  assign dp_run_bank_o  = cur_q[QUEUE_MVMEXE];
  assign dw_run_bank_o  = cur_q[QUEUE_DWPU];
  // the fetched descriptor's DPU section and IFD1 bit (its words arrive before its program)
  // verilator lint_off UNUSEDSIGNAL
  logic [DpWords-1:0][31:0] f_buf;
  dp_header_t f_hdr;
  // verilator lint_on UNUSEDSIGNAL
  always_comb begin
    f_buf         = (f_q_q == QUEUE_DWPU) ? dw_buf_q[f_slot_q] : dp_buf_q[f_slot_q];
    f_hdr         = dp_header_t'(f_buf[DATAPATH_DESC_HEADER_WORD +: DP_HEADER_WORDS]);
    dp_prog_dpu_o = dpu_desc_t'(f_buf[DATAPATH_DESC_DPU_WORD +: DPU_DESC_WORDS]);
    dp_prog_in1_o = f_hdr.has_ifd1;
  end
  assign li_desc_o = li;
  dp_header_t dw_hdr;
  walk_t      dw_ifd0, dw_ifd1, dw_odr;
  dwpu_desc_t dwd;
  dpu_desc_t  dw_dpu;
  assign dw_hdr    = dp_header_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_HEADER_WORD +: DP_HEADER_WORDS]);
  assign dw_ifd0   = walk_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_IFD0_WORD +: WALK_WORDS]);
  assign dw_ifd1   = walk_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_IFD1_WORD +: WALK_WORDS]);
  assign dw_odr    = walk_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_ODR_WORD +: WALK_WORDS]);
  assign dw_segs   = {walk_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_SEG1_WORD +: WALK_WORDS]),
                      walk_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_SEG0_WORD +: WALK_WORDS])};
  assign dw_segs_o = dw_segs;
  assign dwd       = dwpu_desc_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_DWPU_WORD +: DWPU_DESC_WORDS]);
  assign dw_dpu    = dpu_desc_t'(dw_buf_q[cur_q[QUEUE_DWPU]][DATAPATH_DESC_DPU_WORD +: DPU_DESC_WORDS]);
  assign dw_hdr_o  = dw_hdr;
  assign dw_ifd0_o = dw_ifd0;
  assign dw_ifd1_o = dw_ifd1;
  assign dw_dwpu_o = dwd;
  assign dw_dpu_o  = dw_dpu;
  assign dw_odr_o  = dw_odr;
  assign dw_prog_wr_o = f_busy_q && f_rsp_q && f_q_q == QUEUE_DWPU;

  // verilator lint_off UNUSEDSIGNAL
  function automatic logic walk_bad(walk_t w, logic is_ifd);
    logic [5:0][15:0] s;
    logic bad;
    s   = {w.d5_size, w.d4_size, w.d3_size, w.d2_size, w.d1_size, w.d0_size};
    bad = (w.ndims < 3'd1) || (w.ndims > 3'(WALK_DIMS)) ||  // nguards: 2 bits, always <= 3
         
          !dtype_is_memory(w.dtype) || !dtype_is_memory(w.cast_from) ||
          (is_ifd && w.cast_from != w.dtype) || (is_ifd && w.transpose) || (!is_ifd && w.segs != '0);
    for (int unsigned k = 0; k < WALK_DIMS; k++) if (k < 32'(w.ndims) && s[k] == '0) bad = 1'b1;
    return bad;
  endfunction

  // An ODR transpose (walk field transpose) needs the DWPU datapath and a walk length that is a
  // multiple of 64 (the product of the used sizes, mod 64, from their low bits).
  function automatic logic trsp_bad(walk_t w, dp_kind_e kind);
    logic [5:0][15:0] s;
    logic [5:0] m;
    s = {w.d5_size, w.d4_size, w.d3_size, w.d2_size, w.d1_size, w.d0_size};
    m = 6'd1;
    for (int unsigned k = 0; k < WALK_DIMS; k++) if (k < 32'(w.ndims)) m = 6'(m * s[k][5:0]);
    return w.transpose && (kind != DP_KIND_DWPU || m != '0);
  endfunction

  function automatic logic mvm_bad(mvm_desc_t d);
    logic bad;
    bad = (d.ndims < 3'd1) || (d.ndims > 3'd4) || (d.k_blocks == '0) || (d.o0_size == '0) ||
          (d.ndims >= 3'd2 && d.o1_size == '0) || (d.ndims >= 3'd3 && d.o2_size == '0) ||
          (d.ndims >= 3'd4 && d.o3_size == '0);
    return bad;
  endfunction

  function automatic logic dwpu_bad(dwpu_desc_t d);
    logic bad;
    bad = (4'(d.op) > 4'(DWPU_OP_AVERAGE)) || (d.taps == '0) || (32'(d.taps) > DWPU_MAX_TAPS) ||
          (d.ndims < 3'd1) || (d.ndims > 3'd4) || (d.o0_size == '0) ||
          (d.ndims >= 3'd2 && d.o1_size == '0) || (d.ndims >= 3'd3 && d.o2_size == '0) ||
          (d.ndims >= 3'd4 && d.o3_size == '0) || (32'(d.weight_count) > DWPU_WEIGHT_PWORDS);
    return bad;
  endfunction

  // The checks both datapath kinds share once the header's magic and kind passed, in the TLM's
  // order (units; sections ifd0, ifd1, main unit, dpu, odr); the stream dtypes between the
  // units last (the TLM finds those when the element is popped). The main unit emits int32
  // from int8.
  function automatic error_code_e dp_check(dp_header_t h, walk_t i0, walk_t i1,
                                           walk_t [IFD_SEG_WALKS-1:0] sg, logic main_bad,
                                           dpu_desc_t d, error_code_e prog, walk_t o);
    dtype_e main_dt, odr_dt;
    logic [2:0] taken;   // seg sections the feeders name (IFD0's first)
    logic seg_bad, seg_dt_bad;
    main_dt = h.has_main ? DTYPE_INT32 : i0.dtype;   // what the DPU/ODR gets
    odr_dt  = h.has_dpu ? d.out_dtype : main_dt;
    taken   = 3'(i0.segs) + (h.has_ifd1 ? 3'(i1.segs) : 3'd0);
    seg_bad = 32'(taken) > IFD_SEG_WALKS;
    seg_dt_bad = 1'b0;
    for (int unsigned k = 0; k < IFD_SEG_WALKS; k++) begin
      if (k < 32'(taken) && (walk_bad(sg[k], 1'b1) || sg[k].segs != '0)) seg_bad = 1'b1;
      // IFD0's segments reach the main unit or the ODR as one dtype (the DPU's POPs name theirs)
      if (k < 32'(i0.segs) && (h.has_main || !h.has_dpu) && sg[k].dtype != i0.dtype) seg_dt_bad = 1'b1;
    end
    if (!h.has_ifd0 || !h.has_odr || (h.has_ifd1 && !h.has_dpu))          return ERROR_CODE_DESC_UNITS;
    if (h.words < 16'(DpWords) || walk_bad(i0, 1'b1) || (h.has_ifd1 && walk_bad(i1, 1'b1)) || seg_bad ||
        (h.has_main && main_bad) ||
        (h.has_dpu && 32'(DpWords) + 32'd2 * (32'(d.init_len) + 32'(d.body_len)) > 32'(h.words)))
                                                                          return ERROR_CODE_DESC_RANGE;
    if (h.has_dpu && prog != ERROR_CODE_NONE)                             return prog;
    if (walk_bad(o, 1'b0) || trsp_bad(o, h.kind))                         return ERROR_CODE_DESC_RANGE;
    if ((h.has_main && i0.dtype != DTYPE_INT8) || o.cast_from != odr_dt || seg_dt_bad ||
        (h.has_dpu && d.in0_dtype != main_dt) || (h.has_ifd1 && d.in1_dtype != i1.dtype))
                                                                          return ERROR_CODE_STREAM_DTYPE;
    return ERROR_CODE_NONE;
  endfunction
  // verilator lint_on UNUSEDSIGNAL

  error_code_e dp_code, dw_code, li_code, bar_code;
  always_comb begin
    if (hdr.magic != MAGIC_DATAPATH || hdr.kind != DP_KIND_MVMEXE) dp_code = ERROR_CODE_DESC_MAGIC;
    else dp_code = dp_check(hdr, w_ifd0, w_ifd1, w_segs, mvm_bad(mvm), dpu, dp_prog_code_i, w_odr);
    // a descriptor of the other datapath kind: "descriptor magic does not match the queue" (TLM)
    if (dw_hdr.magic != MAGIC_DATAPATH || dw_hdr.kind != DP_KIND_DWPU) dw_code = ERROR_CODE_DESC_MAGIC;
    else dw_code = dp_check(dw_hdr, dw_ifd0, dw_ifd1, dw_segs, dwpu_bad(dwd), dw_dpu, dw_prog_code_i, dw_odr);
    li_code = ERROR_CODE_NONE;
    if (li.magic != MAGIC_LOADIMC)                  li_code = ERROR_CODE_DESC_MAGIC;
    else if (li.d0_size == '0 || li.d1_size == '0)  li_code = ERROR_CODE_DESC_RANGE;
    bar_code = ERROR_CODE_NONE;
    if (bar.magic != MAGIC_BARRIER) bar_code = ERROR_CODE_DESC_MAGIC;
    else if (!bar.core_mask[Row - FIRST_CORE_ROW] || (32'(bar.core_mask) >> Cores) != 0)
      bar_code = ERROR_CODE_BARRIER_MASK;
  end

  // ---- per-queue task state ----
  logic dp_run, dw_run, li_run, bar_run;
  assign dp_run  = (st_q[QUEUE_MVMEXE] == S_RUN);
  assign dw_run  = (st_q[QUEUE_DWPU] == S_RUN);
  assign li_run  = (st_q[QUEUE_LOADIMC] == S_RUN);
  assign bar_run = (st_q[QUEUE_CTRL] == S_RUN);

  // MVMEXE and LoadIMC together only on tiles apart (the running task's buffer and the checked one's)
  logic imc_apart;
  ax_imc_apart u_imc_apart (.has_mvm_i(hdr.has_main), .mvm_i(mvm), .li_i(li), .apart_o(imc_apart));

  logic [NQ-1:0] can_start, chk_fail, run_done, run_err, start_now, tok_gnt;
  error_code_e [NQ-1:0] chk_code, run_code;
  logic [NQ-1:0][31:0]  run_addr;
  always_comb begin
    for (int unsigned q = 0; q < NQ; q++) chk_code[q] = ERROR_CODE_NONE;  // queues without a check below
    chk_code[QUEUE_CTRL]    = bar_code;
    chk_code[QUEUE_DWPU]    = dw_code;
    chk_code[QUEUE_LOADIMC] = li_code;
    chk_code[QUEUE_MVMEXE]  = dp_code;
    for (int unsigned q = 0; q < NQ; q++) chk_fail[q] = (st_q[q] == S_CHECK) && chk_code[q] != ERROR_CODE_NONE;
    can_start       = '0;
    can_start[QUEUE_MVMEXE] = !li_run || imc_apart;
    can_start[QUEUE_LOADIMC]  = !dp_run || imc_apart;
    can_start[QUEUE_DWPU]  = 1'b1;        // the DWPU datapath reads no IMC: it overlaps everything
    // a barrier waits for every other queue to be idle and empty
    can_start[QUEUE_CTRL] = 1'b1;
    for (int unsigned q = 0; q < NQ - 1; q++) if (st_q[q] != S_IDLE || q_valid[q]) can_start[QUEUE_CTRL] = 1'b0;
    for (int unsigned q = 0; q < NQ; q++) start_now[q] = (st_q[q] == S_CHECK) && !chk_fail[q] && can_start[q];
    run_done = '0;
    run_err  = '0;
    run_code = {NQ{ERROR_CODE_NONE}};
    run_addr = '0;
    run_done[QUEUE_MVMEXE] = dp_run && dp_done_i;
    run_err[QUEUE_MVMEXE]  = dp_run && (dp_err_i.valid || wdog_fire_i);
    run_code[QUEUE_MVMEXE] = wdog_fire_i ? ERROR_CODE_WATCHDOG : dp_err_i.code;
    run_addr[QUEUE_MVMEXE] = dp_err_i.addr;
    run_done[QUEUE_DWPU]  = dw_run && dw_done_i;
    run_err[QUEUE_DWPU]   = dw_run && (dw_err_i.valid || dw_wdog_fire_i);
    run_code[QUEUE_DWPU]  = dw_wdog_fire_i ? ERROR_CODE_WATCHDOG : dw_err_i.code;
    run_addr[QUEUE_DWPU]  = dw_err_i.addr;
    run_done[QUEUE_LOADIMC]  = li_run && li_done_i;
    run_err[QUEUE_LOADIMC]   = li_run && li_err_i.valid;
    run_code[QUEUE_LOADIMC]  = li_err_i.code;
    run_addr[QUEUE_LOADIMC]  = li_err_i.addr;
    run_done[QUEUE_CTRL] = bar_run && bar_release_i;
  end

  // restart of a repeated run happens the cycle after a run ends
  logic [NQ-1:0] restart_q, restart_d;
  assign dp_start_o   = start_now[QUEUE_MVMEXE] || restart_q[QUEUE_MVMEXE];
  assign li_start_o   = start_now[QUEUE_LOADIMC] || restart_q[QUEUE_LOADIMC];
  assign dw_start_o   = start_now[QUEUE_DWPU] || restart_q[QUEUE_DWPU];
  assign dw_abort_o   = run_err[QUEUE_DWPU] || clr_i || q_reset_i[QUEUE_DWPU];
  assign dp_abort_o   = run_err[QUEUE_MVMEXE] || clr_i || q_reset_i[QUEUE_MVMEXE];
  assign li_abort_o   = run_err[QUEUE_LOADIMC] || clr_i || q_reset_i[QUEUE_LOADIMC];
  assign bar_arrive_o = bar_run;
  assign bar_id_o     = bar.barrier_id;
  assign bar_mask_o   = bar.core_mask;

  always_comb begin
    st_d      = st_q;
    rep_d     = rep_q;
    err_d     = err_q;
    code_d    = code_q;
    done_d    = done_q;
    lasterr_d = lasterr_q;
    restart_d = '0;
    q_pop     = '0;
    pf_d       = pf_q;
    cur_d      = cur_q;
    pf_words_d = pf_words_q;
    for (int unsigned q = 0; q < NQ; q++) begin
      // the prefetch of the task behind the head (the engine's fetch while the head is past S_FETCH)
      if (!f_busy_q && f_any && f_pick == 2'(q) && f_req_pf[q]) pf_d[q] = PF_BUSY;
      if (f_end[q] && pf_q[q] == PF_BUSY && st_q[q] != S_FETCH) begin
        pf_d[q]       = f_done[q] ? PF_DONE : f_range[q] ? PF_BAD : PF_NONE;
        pf_words_d[q] = f_total_d;
      end
      // a host write over a prefetched descriptor drops it (it is fetched again)
      if (pf_q[q] == PF_DONE && cmd_wr_i && 32'(cmd_wr_addr_i) >= 32'(q_next[q].start) &&
          32'(cmd_wr_addr_i) < 32'(q_next[q].start) + 32'(pf_words_q[q])) pf_d[q] = PF_NONE;
      unique case (st_q[q])
        S_IDLE: if (q_valid[q]) begin
          st_d[q]  = S_FETCH;
          rep_d[q] = '0;
          err_d[q] = 1'b0;
        end
        S_FETCH: begin
          if (f_range[q]) begin
            st_d[q]   = S_TOKEN;
            err_d[q]  = 1'b1;
            code_d[q] = ERROR_CODE_CMD_RANGE;
          end else if (f_done[q]) st_d[q] = S_CHECK;
        end
        S_CHECK: begin
          if (chk_fail[q]) begin
            st_d[q]   = S_TOKEN;
            err_d[q]  = 1'b1;
            code_d[q] = chk_code[q];
          end else if (start_now[q]) st_d[q] = S_RUN;
        end
        S_RUN: begin
          if (run_err[q]) begin
            st_d[q]   = S_TOKEN;
            err_d[q]  = 1'b1;
            code_d[q] = run_code[q];
          end else if (run_done[q]) begin
            if (rep_q[q] < q_head[q].repeat_f && q != 32'(QUEUE_CTRL)) begin
              rep_d[q]     = rep_q[q] + 8'd1;
              restart_d[q] = 1'b1;
            end else st_d[q] = S_TOKEN;
          end
        end
        default: begin  // S_TOKEN: the task is done; offer the token if there is one
          if (!(q_head[q].token || err_q[q]) || tok_gnt[q]) begin
            st_d[q]      = S_IDLE;
            q_pop[q]     = 1'b1;
            done_d[q]    = done_q[q] + 16'd1;
            lasterr_d[q] = err_q[q];
            // the task behind takes its prefetched slot: checked next cycle, or still fetching
            if (pf_d[q] == PF_DONE || pf_d[q] == PF_BUSY) begin
              st_d[q]  = (pf_d[q] == PF_DONE) ? S_CHECK : S_FETCH;
              cur_d[q] = !cur_q[q];
              rep_d[q] = '0;
              err_d[q] = 1'b0;
            end
            pf_d[q] = PF_NONE;
          end
        end
      endcase
      if (clr_i || q_reset_i[q]) begin
        st_d[q] = S_IDLE;
        q_pop[q] = 1'b0;
        pf_d[q] = PF_NONE;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q      <= {NQ{S_IDLE}};
      rep_q     <= '0;
      err_q     <= '0;
      code_q    <= {NQ{ERROR_CODE_NONE}};
      done_q    <= '0;
      lasterr_q <= '0;
      restart_q <= '0;
      pf_q      <= {NQ{PF_NONE}};
      cur_q     <= '0;
      pf_words_q <= '0;
    end else begin
      pf_q      <= pf_d;
      cur_q     <= cur_d;
      pf_words_q <= pf_words_d;
      st_q      <= st_d;
      rep_q     <= rep_d;
      err_q     <= err_d;
      code_q    <= code_d;
      done_q    <= clr_i ? '0 : done_d;
      lasterr_q <= lasterr_d;
      restart_q <= restart_d;
    end
  end

  // ---- tokens: the lowest queue with one pending ----
  // The completion token of queue q's head task.
  function automatic token_t queue_token(logic err, error_code_e code, logic [6:0] tag, int unsigned q);
    token_t t;
    t         = '0;
    t.valid   = 1'b1;
    t.error   = err;
    t.code    = err ? code : ERROR_CODE_NONE;
    t.tag     = tag;
    t.row     = 5'(Row);
    t.channel = 5'(CORE_QUEUE_CHANNEL_BASE + q);
    return t;
  endfunction

  token_t [NQ-1:0] tok;
  always_comb begin
    tok_gnt     = '0;
    tok_valid_o = 1'b0;
    tok_o       = '0;
    for (int unsigned q = 0; q < NQ; q++) tok[q] = queue_token(err_q[q], code_q[q], q_head[q].tag, q);
    for (int q = NQ - 1; q >= 0; q--) begin
      if (st_q[q] == S_TOKEN && (q_head[q].token || err_q[q])) begin
        tok_valid_o = 1'b1;
        tok_o       = tok[q];
        tok_gnt     = '0;
        tok_gnt[q]  = tok_ready_i;
      end
    end
  end

  // ---- error report: overflow first, then the lowest queue failing this cycle ----
  always_comb begin
    err_valid_o   = 1'b0;
    err_code_o    = ERROR_CODE_NONE;
    err_channel_o = '0;
    err_detail_o  = '0;
    err_addr_o    = '0;
    for (int q = NQ - 1; q >= 0; q--) begin
      logic fail;
      fail = (st_q[q] == S_FETCH && f_range[q]) || chk_fail[q] || run_err[q];
      if (fail) begin
        err_valid_o   = 1'b1;
        err_code_o    = (st_q[q] == S_FETCH) ? ERROR_CODE_CMD_RANGE :
                        (st_q[q] == S_CHECK) ? chk_code[q] : run_code[q];
        err_channel_o = 5'(CORE_QUEUE_CHANNEL_BASE + q);
        err_detail_o  = q_head[q].start;
        err_addr_o    = (st_q[q] == S_RUN) ? run_addr[q] : 32'(q_head[q].start);
      end
    end
    for (int q = NQ - 1; q >= 0; q--) begin
      if (ovf[q]) begin
        err_valid_o   = 1'b1;
        err_code_o    = ERROR_CODE_QUEUE_OVERFLOW;
        err_channel_o = 5'(CORE_QUEUE_CHANNEL_BASE + q);
        err_detail_o  = push_word_i.start;
        err_addr_o    = '0;
      end
    end
  end

  // ---- status and monitors ----
  logic [31:0] li_bytes;
  assign li_bytes = 32'(li.d0_size) * 32'(li.d1_size) * 32'(IMC_TILE_ROWS * ROW_BYTES);
  always_comb begin
    for (int unsigned q = 0; q < NQ; q++) begin
      q_pending_o[q]   = 5'(q_cnt[q]);
      q_busy_o[q]      = (st_q[q] != S_IDLE);
      q_error_o[q]     = lasterr_q[q];
      q_done_o[q]      = done_q[q];
      q_task_ok_o[q]   = q_pop[q] && !err_q[q];  // err_q: this task's (lasterr_q: the previous one's)
      mon_o[q]         = '0;
      if (start_now[q]) begin
        mon_o[q].valid = 1'b1;
        mon_o[q].start = 1'b1;
        mon_o[q].addr  = q_head[q].start;
        mon_o[q].word  = word_t'(q_head[q]);
      end
      if ((st_q[q] != S_TOKEN) && (st_d[q] == S_TOKEN)) begin
        mon_o[q].valid = 1'b1;
        mon_o[q].start = 1'b0;
        mon_o[q].addr  = q_head[q].start;
        mon_o[q].bytes = (q == 32'(QUEUE_MVMEXE) && !err_d[q]) ? dp_bytes_i :
                         (q == 32'(QUEUE_DWPU) && !err_d[q]) ? dw_bytes_i :
                         (q == 32'(QUEUE_LOADIMC) && !err_d[q]) ? li_bytes : '0;
        mon_o[q].word  = (q_head[q].token || err_d[q]) ?
                         word_t'(queue_token(err_d[q], code_d[q], q_head[q].tag, q)) : '0;
      end
    end
  end

  logic unused;
  assign unused = ^{hdr, mvm, bar, li, dpu, dw_hdr, dwd, dw_dpu, restart_q[QUEUE_CTRL]};  // a barrier does not repeat
endmodule
