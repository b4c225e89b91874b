// One DMA channel (MM2S or S2MM) of a BD engine. A task (queue push) runs its BD chain
// repeat + 1 times; each BD is checked when it is loaded (BD_INVALID, BD_MISALIGNED,
// PAD_ON_S2MM, ADDR_RANGE, BD_CHAIN_LOOP) and then walked at up to one beat (16 words of one
// 64-byte row, docs/timing.md "Beat rule") per cycle. MM2S reads rows (a DDR read: one burst up
// to the next 4 KiB boundary; padding generated locally) into an in-order reorder buffer of
// RobDepth rows that feeds the channel pair's word stream; S2MM pops the stream and writes (to
// DDR in bursts framed by bfirst/blast). A failing task drains its outstanding
// requests, tells the partner channel (which ends its running task with the same code) and
// completes with an error token. See docs/rtl.md "DMA engines".
module ax_dma_chan
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter bit          IsMm2s     = 1'b1,
  parameter int unsigned Bds        = 16,
  parameter int unsigned Dims       = 4,
  parameter int unsigned SizeBits   = 16,
  parameter int unsigned StrideBits = 24,
  parameter bit          Padding    = 1'b1,
  parameter int unsigned Cores      = 1,
  parameter int unsigned Channel    = 0,
  parameter int unsigned Row        = 0,
  parameter int unsigned RobDepth   = DMA_ROB_ROWS,
  localparam int unsigned BdW = $clog2(Bds),
  localparam int unsigned SCntW = $clog2(DMA_STREAM_DEPTH + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // host
  input  logic                 push_valid_i,
  input  queue_push_t          push_i,
  output logic                 ovf_o,
  input  logic                 ctl_reset_i,
  input  logic                 pause_i,
  // BD store
  output logic [BdW-1:0]       bd_idx_o,
  input  dma_bd_t              bd_i,
  output logic                 wb_valid_o,
  output logic [BdW-1:0]       wb_idx_o,
  output logic [11:0]          wb_iter_o,
  // word fabric
  output logic                 req_valid_o,
  output word_req_t            req_o,
  input  logic                 req_ready_i,
  input  logic                 rsp_valid_i,
  input  row_t                 rsp_data_i,
  // pair word stream (ax_dma_wfifo): MM2S pushes s_n_o words when s_count_i leaves room,
  // S2MM pops s_n_o words when s_count_i holds them; s_data_i = the 16 words at the head
  output logic                 s_push_o,
  output logic                 s_pop_o,
  output logic [4:0]           s_n_o,
  output row_t                 s_data_o,
  input  logic [SCntW-1:0]     s_count_i,
  input  row_t                 s_data_i,
  // pair abort
  output logic                 fail_o,         // this task failed (pulse)
  output error_code_e          fail_code_o,
  input  logic                 partner_fail_i,
  input  error_code_e          partner_code_i,
  output logic                 flush_o,        // drop the pair stream's contents
  // token
  output logic                 tok_valid_o,
  input  logic                 tok_ready_i,
  output token_t               tok_o,
  // error report (first one is kept by the tile)
  output logic                 err_valid_o,
  output error_code_e          err_code_o,
  output logic [15:0]          err_detail_o,
  output logic [31:0]          err_addr_o,
  // status
  output logic [4:0]           pending_o,
  output logic                 busy_o,
  output logic                 error_o,
  output logic [7:0]           cur_bd_o,
  output logic [15:0]          done_o,
  output logic [31:0]          bytes_o,
  // trace monitor
  output mon_task_t            mon_task_o,
  output mon_write_t           mon_write_o
);
  typedef enum logic [2:0] {S_IDLE, S_LOAD, S_RUN, S_DRAIN, S_ABORT, S_FINISH, S_TOKEN} state_e;

  localparam int unsigned QCntW = $clog2(QUEUE_DEPTH + 1);

  state_e              state_q, state_d;
  queue_push_t         task_q;
  logic [7:0]          runs_q, runs_d;         // runs still to start after the current one
  logic [15:0]         bd_q, bd_d;             // BD being run (16 bits: a start >= Bds is BD_INVALID)
  logic [7:0]          chain_q, chain_d;       // BDs run in this run of the chain
  logic                err_q, err_d;           // the task has failed
  error_code_e         code_q, code_d;
  logic                quiet_q, quiet_d;       // failed by a channel reset: no token
  logic                last_err_q;
  logic [15:0]         done_q;
  logic [31:0]         bytes_q;
  logic [31:0]         task_bytes_q;           // bytes written by this task (S2MM)
  logic                cls_ddr_q;              // class of the outstanding requests
  logic [8:0]          outst;                  // requests without a response

  // ---- task queue (the running task stays at the head until it completes) ----
  logic              q_valid, q_pop, q_ready;
  queue_push_t       q_head, unused_q_next;
  logic [QCntW-1:0]  q_count;
  logic              q_clr;

  ax_fifo #(.T(queue_push_t), .Depth(QUEUE_DEPTH), .CheckIn(1'b0)) u_queue (  // a push to a full queue is dropped
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clr_i       (q_clr),
    .in_valid_i  (push_valid_i),
    .in_ready_o  (q_ready),
    .in_data_i   (push_i),
    .out_valid_o (q_valid),
    .out_ready_i (q_pop),
    .out_data_o  (q_head),
    .out_next_o  (unused_q_next),
    .count_o     (q_count)
  );
  assign ovf_o = push_valid_i && !q_ready;

  // ---- BD check (combinational on the BD being loaded), in common/ref's order ----
  dma_bd_t            bd;
  error_code_e        chk_code;
  logic signed [47:0] base;
  logic [31:0]        chk_addr;

  assign bd_idx_o = BdW'(bd_q);
  assign bd       = bd_i;

  function automatic logic fits_signed(logic [23:0] v);
    // v (24-bit two's complement) is representable in StrideBits bits.
    logic [23:0] hi;
    hi = v >> (StrideBits - 1);
    return (hi == '0) || (hi == (24'hFFFFFF >> (StrideBits - 1)));
  endfunction

  always_comb begin
    logic [63:0]        prod;
    logic signed [47:0] lo, hi, ioff, span, limit;
    logic [15:0]        sz [4];
    logic [23:0]        st [4];
    logic [7:0]         pb [4];
    logic [7:0]         pa [4];
    logic               bad_shape, any_pad;
    logic [11:0]        icur;
    sz = '{bd.d0_size, bd.d1_size, bd.d2_size, bd.d3_size};
    st = '{bd.d0_stride, bd.d1_stride, bd.d2_stride, bd.d3_stride};
    pb = '{bd.d0_pad_before, bd.d1_pad_before, bd.d2_pad_before, bd.d3_pad_before};
    pa = '{bd.d0_pad_after, bd.d1_pad_after, bd.d2_pad_after, bd.d3_pad_after};
    prod      = 64'd1;
    bad_shape = 1'b0;
    any_pad   = 1'b0;
    lo        = '0;
    hi        = '0;
    for (int unsigned k = 0; k < 4; k++) begin
      logic [15:0] s;
      s    = (sz[k] == 16'd0) ? 16'd1 : sz[k];
      prod = prod * 64'(s);
      if ((32'(sz[k]) >> SizeBits) != '0) bad_shape = 1'b1;
      if (!fits_signed(st[k])) bad_shape = 1'b1;
      if (k >= Dims && (s != 16'd1 || st[k] != '0 || pb[k] != '0 || pa[k] != '0)) bad_shape = 1'b1;
      if (pb[k] != '0 || pa[k] != '0) any_pad = 1'b1;
      span = (48'(s) - 48'd1) * 48'($signed(st[k]));
      if (span < 0) lo = lo + span;
      else          hi = hi + span;
    end
    icur = (bd.iter_size > 12'd1) ? (bd.iter_current % bd.iter_size) : 12'd0;
    ioff = 48'(icur) * 48'($signed(bd.iter_stride));
    base = $signed({16'd0, bd.addr_lo}) + ($signed({8'd0, bd.addr_hi[7:0], 32'd0})) + (ioff <<< 2);
    lo   = base + (lo <<< 2);
    hi   = base + (hi <<< 2) + 48'sd3;
    unique case (bd.mem)
      MEM_SEL_DDR: limit = 48'sd1 <<< DDR_ADDR_BITS;
      MEM_SEL_L2:  limit = 48'(L2_BYTES);
      default:     limit = 48'(L1_BYTES);
    endcase
    chk_addr = bd.addr_lo;
    if (bd_q >= 16'(Bds) || !bd.valid || bd.mem == MEM_SEL_RESERVED) begin
      chk_code = ERROR_CODE_BD_INVALID;
    end else if (bd.addr_lo[1:0] != 2'b00) begin
      chk_code = ERROR_CODE_BD_MISALIGNED;
    end else if (bad_shape || 64'(bd.length) != prod) begin
      chk_code = ERROR_CODE_BD_INVALID;
    end else if (any_pad && (!IsMm2s || !Padding)) begin
      chk_code = ERROR_CODE_PAD_ON_S2MM;
    end else if (bd.addr_hi[31:8] != '0 || lo < 0 || hi >= limit ||
                 (bd.mem == MEM_SEL_L1 && int'(bd.core) >= int'(Cores))) begin
      chk_code = ERROR_CODE_ADDR_RANGE;
      chk_addr = (lo < 0) ? lo[31:0] : hi[31:0];
    end else begin
      chk_code = ERROR_CODE_NONE;
    end
  end

  // ---- walk ----
  logic                     w_load, w_step, w_active, w_pad, w_first, w_rlast, w_last;
  logic [DDR_ADDR_BITS-1:0] w_addr;
  logic [4:0]               w_n;
  logic [10:0]              w_bn, w_step_n;
  logic [6:0]               w_brows;
  dma_bd_t                  bd_run_q;  // the BD being walked (mem, core, pad value)
  logic                     ddr_run;   // the running BD addresses DDR

  assign ddr_run  = (bd_run_q.mem == MEM_SEL_DDR);
  // An MM2S reading DDR moves a whole burst per request; everything else one row beat.
  assign w_step_n = (IsMm2s && ddr_run && !w_pad) ? w_bn : 11'(w_n);

  ax_dma_walk u_walk (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .load_i      (w_load),
    .bd_i        (bd),
    .base_i      (base),
    .step_i      (w_step),
    .step_n_i    (w_step_n),
    .active_o    (w_active),
    .addr_o      (w_addr),
    .pad_o       (w_pad),
    .n_o         (w_n),
    .bn_o        (w_bn),
    .brows_o     (w_brows),
    .run_first_o (w_first),
    .run_last_o  (w_rlast),
    .last_o      (w_last)
  );

  logic class_ok;
  assign class_ok = (outst == '0) || (cls_ddr_q == (bd.mem == MEM_SEL_DDR));

  // ---- data movement ----
  logic run, issue;
  logic [6:0] bq_left_q;  // S2MM to DDR: rows left in the current write burst (0: none)
  logic       bfirst;
  assign run    = (state_q == S_RUN) && w_active && !pause_i;
  assign bfirst = (bq_left_q == '0);

  always_comb begin
    req_o        = '0;
    req_o.mem    = bd_run_q.mem;
    req_o.core   = bd_run_q.core;
    req_o.addr   = w_addr;
    req_o.we     = !IsMm2s;
    req_o.nw     = w_step_n;
    req_o.rows   = (IsMm2s || bfirst) ? w_brows : bq_left_q;
    req_o.bfirst = !IsMm2s && bfirst;
    req_o.blast  = !IsMm2s && (bfirst ? (w_brows == 7'd1) : (bq_left_q == 7'd1));
    req_o.wdata  = s_data_i << (32 * int'(w_addr[5:2]));
  end

  if (IsMm2s) begin : g_mm2s
    // Reorder buffer of RobDepth rows: a request allocates one slot per row it reads (filled as
    // the rows return, in request order: memq), a pad beat one slot filled at once. Groups
    // (gq: first word offset, words) say which words of its slots a beat or burst owns.
    localparam int unsigned RobW = $clog2(RobDepth);
    typedef struct packed {
      logic [RobW-1:0] slot;
      logic [6:0]      rows;
    } mq_t;
    typedef struct packed {
      logic [3:0]  off;
      logic [10:0] nw;
    } grp_t;
    row_t                rob_q [RobDepth];
    logic [RobDepth-1:0] fill_q;
    logic [RobW-1:0]     head_q, tail_q;
    logic [RobW:0]       cnt_q, need;
    logic                rob_space, mq_ready, mq_valid, mq_push, mq_pop, gq_ready, gq_valid, gq_pop;
    mq_t                 mq_head, unused_mq_next;
    grp_t                gq_head, unused_gq_next;
    logic [RobW:0]       mq_count;
    logic [6:0]          rcnt_q;      // rows of the head request already returned
    logic [10:0]         gw_q;        // words of the head group already drained
    logic [3:0]          d_off;
    logic [4:0]          d_n;
    logic [10:0]         g_left;
    logic                alloc, drain, clear, rsp_ok;

`ifndef SYNTHESIS
    initial begin
      assert ((RobDepth & (RobDepth - 1)) == 0) else $fatal(1, "ax_dma_chan: RobDepth must be a power of two");
    end
`endif

    assign need        = (w_pad || !ddr_run) ? (RobW + 1)'(1) : (RobW + 1)'(w_brows);
    assign rob_space   = (cnt_q + need <= (RobW + 1)'(RobDepth));
    assign req_valid_o = run && !w_pad && rob_space;
    assign alloc       = run && rob_space && (w_pad || req_ready_i);
    assign issue       = alloc;
    assign mq_push     = alloc && !w_pad;
    assign rsp_ok      = rsp_valid_i && mq_valid;
    assign mq_pop      = rsp_ok && (rcnt_q == mq_head.rows - 7'd1);
    assign outst       = 9'(mq_count);
    assign clear       = (state_q == S_ABORT) && (mq_count == '0);
    // the head slot's words: the group's first slot starts at its offset
    assign d_off       = (gw_q == '0) ? gq_head.off : 4'd0;
    assign g_left      = gq_head.nw - gw_q;
    assign d_n         = (g_left < 11'(16 - int'(d_off))) ? 5'(g_left) : 5'(16 - int'(d_off));
    assign s_push_o    = fill_q[head_q] && (cnt_q != '0) && gq_valid && (state_q != S_ABORT) &&
                         (32'(s_count_i) + 32'(d_n) <= DMA_STREAM_DEPTH);
    assign s_n_o       = d_n;
    assign s_data_o    = rob_q[head_q] >> (32 * int'(d_off));
    assign drain       = s_push_o;
    assign gq_pop      = drain && (11'(d_n) == g_left);
    assign s_pop_o     = 1'b0;

    ax_fifo #(.T(mq_t), .Depth(RobDepth)) u_memq (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .clr_i       (1'b0),
      .in_valid_i  (mq_push),
      .in_ready_o  (mq_ready),  // never full: it holds at most RobDepth slots
      .in_data_i   ('{slot: tail_q, rows: ddr_run ? w_brows : 7'd1}),
      .out_valid_o (mq_valid),
      .out_ready_i (mq_pop),
      .out_data_o  (mq_head),
      .out_next_o  (unused_mq_next),
      .count_o     (mq_count)
    );

    ax_fifo #(.T(grp_t), .Depth(RobDepth)) u_grpq (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .clr_i       (clear),
      .in_valid_i  (alloc),
      .in_ready_o  (gq_ready),  // never full: a group holds at least one slot
      .in_data_i   ('{off: w_pad ? 4'd0 : w_addr[5:2], nw: w_step_n}),
      .out_valid_o (gq_valid),
      .out_ready_i (gq_pop),
      .out_data_o  (gq_head),
      .out_next_o  (unused_gq_next),
      .count_o     (unused_gq_count)
    );
    logic [RobW:0] unused_gq_count;

    // The ROB's state changes in the register itself (no next-state copy): alloc and rsp_ok
    // come from the fabric, and logic that reads them is evaluated in every cycle the fabric's
    // arbitration changes, so it stays as small as this (docs/rtl.md).
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        fill_q <= '0;
        head_q <= '0;
        tail_q <= '0;
        cnt_q  <= '0;
        rcnt_q <= '0;
        gw_q   <= '0;
      end else begin
        if (clear) begin
          fill_q <= '0;
          head_q <= '0;
          tail_q <= '0;
          cnt_q  <= '0;
        end else begin
          if (alloc) begin
            if (w_pad) fill_q[tail_q] <= 1'b1;
            tail_q <= tail_q + RobW'(need);
          end
          if (rsp_ok && state_q != S_ABORT) fill_q[RobW'(mq_head.slot + RobW'(rcnt_q))] <= 1'b1;
          if (drain) begin
            fill_q[head_q] <= 1'b0;
            head_q         <= head_q + 1'b1;
          end
          cnt_q <= cnt_q + (alloc ? need : '0) - (RobW + 1)'(drain);
        end
        if (rsp_ok) rcnt_q <= mq_pop ? '0 : rcnt_q + 7'd1;
        if (clear) gw_q <= '0;
        else if (drain) gw_q <= gq_pop ? '0 : gw_q + 11'(d_n);
      end
    end

    always_ff @(posedge clk_i) begin
      if (alloc && w_pad) rob_q[tail_q] <= {16{bd_run_q.pad_value}};
      if (rsp_ok) rob_q[RobW'(mq_head.slot + RobW'(rcnt_q))] <= rsp_data_i;
    end

    logic unused_s2mm;
    assign unused_s2mm = ^{mq_ready, gq_ready, s_data_i};
  end else begin : g_s2mm
    logic [7:0] acks_q, acks_d;
    logic       counted;  // this beat expects a response: every on-chip beat, a DDR burst's first
    assign req_valid_o = run && (32'(s_count_i) >= 32'(w_n));
    assign issue       = req_valid_o && req_ready_i;
    assign s_pop_o     = issue;
    assign s_push_o    = 1'b0;
    assign s_n_o       = w_n;
    assign s_data_o    = '0;
    assign counted     = !ddr_run || bfirst;
    assign outst       = 9'(acks_q);
    always_comb begin
      acks_d = acks_q + 8'(issue && counted) - 8'(rsp_valid_i);
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) acks_q <= '0;
      else         acks_q <= acks_d;
    end
    logic unused_mm2s;
    assign unused_mm2s = ^{rsp_data_i, w_bn};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bq_left_q <= '0;
    end else if (state_q == S_ABORT || state_q == S_IDLE) begin
      bq_left_q <= '0;
    end else if (!IsMm2s && issue && ddr_run) begin
      bq_left_q <= bfirst ? w_brows - 7'd1 : bq_left_q - 7'd1;
    end
  end

  logic rob_idle;
  if (IsMm2s) begin : g_idle_mm2s
    assign rob_idle = (g_mm2s.cnt_q == '0) && (outst == '0);
  end else begin : g_idle_s2mm
    assign rob_idle = (outst == '0);
  end

  assign w_step = issue;

  // Fields of the latched task and BD that only the BD store (or nothing) needs.
  logic unused_fields;
  assign unused_fields = ^{task_q.repeat_f, bd_run_q};

  // ---- task state machine ----
  logic fail_now;  // this channel's own failure this cycle (at BD load or chain)
  error_code_e fail_now_code;
  // The state machine in two parts that read the channel's state alone — the step of every state
  // but the end of a BD (_n), and the end of the running BD (e_) — and a small choice between
  // them on the fabric's grant (issue), so neither part is evaluated in the cycles the fabric's
  // arbitration changes while the channel's clock does not run (docs/rtl.md).
  state_e      state_n, e_state;
  logic [7:0]  runs_n, chain_n, e_runs, e_chain;
  logic [15:0] bd_n, e_bd;
  logic        err_n, fail_n, wb_valid_n, e_err, e_fail, e_wb_valid, run_end;
  error_code_e code_n, fail_code_n, e_code, e_fail_code;
  logic [11:0] wb_iter_n, e_wb_iter;

  always_comb begin
    state_n       = state_q;
    runs_n        = runs_q;
    bd_n          = bd_q;
    chain_n       = chain_q;
    err_n         = err_q;
    code_n        = code_q;
    quiet_d       = quiet_q;
    q_pop         = 1'b0;
    q_clr         = 1'b0;
    w_load        = 1'b0;
    wb_valid_n    = 1'b0;
    wb_idx_o      = BdW'(bd_q);
    wb_iter_n     = '0;
    fail_n        = 1'b0;
    fail_code_n   = chk_code;

    unique case (state_q)
      S_IDLE: begin
        if (q_valid) begin
          bd_n         = q_head.start;
          runs_n       = q_head.repeat_f;
          chain_n      = 8'd1;
          err_n        = 1'b0;
          code_n       = ERROR_CODE_NONE;
          quiet_d      = 1'b0;
          state_n      = S_LOAD;
        end
      end
      S_LOAD: begin
        if (chk_code != ERROR_CODE_NONE) begin
          fail_n  = 1'b1;
          err_n   = 1'b1;
          code_n  = chk_code;
          state_n = S_ABORT;
        end else if (class_ok) begin
          w_load  = 1'b1;
          state_n = S_RUN;
        end
      end
      S_RUN: begin
        // the BD's last beat: the e_ block below
      end
      S_DRAIN: begin
        if (rob_idle) state_n = S_FINISH;
      end
      S_ABORT: begin
        if (outst == '0) state_n = S_FINISH;
      end
      S_FINISH: begin
        q_pop   = 1'b1;
        state_n = (task_q.token && !quiet_q) ? S_TOKEN : S_IDLE;
      end
      S_TOKEN: begin
        if (tok_ready_i) state_n = S_IDLE;
      end
      default: state_n = S_IDLE;
    endcase

    // The partner failed: end the running task with its code.
    if (partner_fail_i && state_q inside {S_LOAD, S_RUN, S_DRAIN} && !fail_n) begin
      err_n   = 1'b1;
      code_n  = partner_code_i;
      state_n = S_ABORT;
    end
    // Channel reset: drop every queued task, end the running one without a token.
    if (ctl_reset_i) begin
      q_clr = 1'b1;
      if (state_q inside {S_LOAD, S_RUN, S_DRAIN, S_ABORT}) begin
        err_n   = 1'b1;
        quiet_d = 1'b1;
        state_n = S_ABORT;
      end else if (state_q inside {S_FINISH, S_TOKEN}) begin
        state_n = S_IDLE;
      end
    end
  end

  // S_RUN, the BD's last beat issued: write its iteration back and decide the next step in the
  // same cycle, so a chain or a repeat costs one cycle (S_LOAD) between BDs.
  always_comb begin
    e_state     = S_DRAIN;
    e_runs      = runs_q;
    e_bd        = bd_q;
    e_chain     = chain_q;
    e_err       = err_q;
    e_code      = code_q;
    e_wb_valid  = 1'b0;
    e_wb_iter   = '0;
    e_fail      = 1'b0;
    e_fail_code = chk_code;
    if (bd_run_q.iter_size > 12'd1) begin
      e_wb_valid = 1'b1;
      e_wb_iter  = ((bd_run_q.iter_current % bd_run_q.iter_size) == bd_run_q.iter_size - 1'b1)
                   ? 12'd0 : (bd_run_q.iter_current % bd_run_q.iter_size) + 1'b1;
    end
    if (bd_run_q.use_next) begin
      if (chain_q >= 8'(Bds) && 32'(bd_run_q.next_bd) < Bds) begin
        e_fail      = 1'b1;
        e_fail_code = ERROR_CODE_BD_CHAIN_LOOP;
        e_err       = 1'b1;
        e_code      = ERROR_CODE_BD_CHAIN_LOOP;
        e_state     = S_ABORT;
      end else begin
        e_bd    = 16'(bd_run_q.next_bd);  // a missing BD fails in S_LOAD (BD_INVALID)
        e_chain = chain_q + 1'b1;
        e_state = S_LOAD;
      end
    end else if (runs_q != 8'd0) begin
      e_runs  = runs_q - 1'b1;
      e_bd    = task_q.start;
      e_chain = 8'd1;
      e_state = S_LOAD;
    end else begin
      e_state = S_DRAIN;
    end
  end

  assign run_end = (state_q == S_RUN) && issue && w_last;
  always_comb begin
    state_d       = state_n;
    runs_d        = runs_n;
    bd_d          = bd_n;
    chain_d       = chain_n;
    err_d         = err_n;
    code_d        = code_n;
    wb_valid_o    = wb_valid_n;
    wb_iter_o     = wb_iter_n;
    fail_now      = fail_n;
    fail_now_code = fail_code_n;
    if (run_end) begin
      state_d       = e_state;
      runs_d        = e_runs;
      bd_d          = e_bd;
      chain_d       = e_chain;
      err_d         = e_err;
      code_d        = e_code;
      wb_valid_o    = e_wb_valid;
      wb_iter_o     = e_wb_iter;
      fail_now      = e_fail;
      fail_now_code = e_fail_code;
      // the partner's failure and a channel reset override it as in the other states
      if (partner_fail_i && !e_fail) begin
        err_d   = 1'b1;
        code_d  = partner_code_i;
        state_d = S_ABORT;
      end
      if (ctl_reset_i) begin
        err_d   = 1'b1;
        state_d = S_ABORT;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= S_IDLE;
      task_q       <= '0;
      runs_q       <= '0;
      bd_q         <= '0;
      chain_q      <= '0;
      err_q        <= 1'b0;
      code_q       <= ERROR_CODE_NONE;
      quiet_q      <= 1'b0;
      last_err_q   <= 1'b0;
      done_q       <= '0;
      bytes_q      <= '0;
      task_bytes_q <= '0;
      cls_ddr_q    <= 1'b0;
      bd_run_q     <= '0;
    end else begin
      state_q      <= state_d;
      runs_q       <= runs_d;
      bd_q         <= bd_d;
      chain_q      <= chain_d;
      err_q        <= err_d;
      code_q       <= code_d;
      quiet_q      <= quiet_d;
      if (issue) begin
        bytes_q   <= bytes_q + (!(IsMm2s && w_pad) ? 32'(w_step_n) << 2 : 32'd0);
        cls_ddr_q <= (bd_run_q.mem == MEM_SEL_DDR);
      end
      if (state_q == S_IDLE && q_valid) task_bytes_q <= '0;
      else if (!IsMm2s && issue)         task_bytes_q <= task_bytes_q + (32'(w_step_n) << 2);
      if (state_q == S_IDLE && q_valid) task_q <= q_head;
      if (w_load) bd_run_q <= bd;
      if (state_q == S_FINISH) begin
        done_q     <= done_q + 1'b1;
        last_err_q <= err_q;
      end
    end
  end

  // ---- outputs ----
  assign tok_valid_o  = (state_q == S_TOKEN);  // from the state only: no loop through the token arbiters
  assign flush_o      = fail_now || (partner_fail_i && state_d == S_ABORT && state_q != S_ABORT) ||
                        ctl_reset_i;
  assign fail_o       = fail_now;
  assign fail_code_o  = fail_now_code;
  assign err_valid_o  = fail_now;
  assign err_code_o   = fail_now_code;
  assign err_detail_o = bd_q;
  assign err_addr_o   = (fail_now_code == ERROR_CODE_ADDR_RANGE) ? chk_addr : bd.addr_lo;

  always_comb begin
    tok_o         = '0;
    tok_o.valid   = 1'b1;
    tok_o.error   = err_q;
    tok_o.code    = code_q;
    tok_o.tag     = task_q.tag;
    tok_o.col     = '0;
    tok_o.row     = 5'(Row);
    tok_o.dir     = IsMm2s;
    tok_o.channel = 5'(Channel);
  end

  assign pending_o = 5'(q_count);
  assign busy_o    = (state_q != S_IDLE);
  assign error_o   = last_err_q;
  assign cur_bd_o  = bd_q[7:0];
  assign done_o    = done_q;
  assign bytes_o   = bytes_q;

  always_comb begin
    mon_task_o       = '0;
    if (state_q == S_IDLE && q_valid) begin
      mon_task_o.valid = 1'b1;
      mon_task_o.start = 1'b1;
      mon_task_o.addr  = q_head.start;
      mon_task_o.word  = q_head;
    end else if (state_q == S_FINISH && !quiet_q) begin
      mon_task_o.valid = 1'b1;
      mon_task_o.start = 1'b0;
      mon_task_o.addr  = task_q.start;
      mon_task_o.bytes = task_bytes_q;
      mon_task_o.word  = task_q.token ? tok_o : '0;
    end
  end
  // The write beat's record from the channel's state; only its valid bit reads the fabric's
  // grant (issue), so the beat's data is not rebuilt in every cycle the fabric changes.
  always_comb begin
    mon_write_o.first  = w_first;
    mon_write_o.last   = w_rlast;
    mon_write_o.addr   = w_addr;
    mon_write_o.nbytes = 8'(w_n) << 2;
    mon_write_o.data   = s_data_i & ~(ROW_BITS'('1) << (32 * int'(w_n)));
  end
  assign mon_write_o.valid = !IsMm2s && issue;
endmodule
