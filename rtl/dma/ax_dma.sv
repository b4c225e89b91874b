// A DMA BD engine (SysDMA, MemDMA or CoreDMA): Channels channel pairs, MM2S ch n feeding S2MM
// ch n through a dma_stream_depth word FIFO (ax_dma_wfifo, up to 16 words in and out a cycle), the BD store in the tile's register space, the
// channel control/queue/status/bytes registers, one token output and one error report output.
// Every tile places the DMA register block alike: its offsets and register types are the
// generated shared ones (DMA_*_OFFSET, dma_*_t); Bds is the tile's BD count.
module ax_dma
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Bds          = 16,
  parameter int unsigned Dims         = 4,
  parameter int unsigned SizeBits     = 16,
  parameter int unsigned StrideBits   = 24,
  parameter bit          Padding      = 1'b1,
  parameter int unsigned Cores        = 1,
  parameter int unsigned Row          = 0,
  parameter int unsigned RobDepth     = DMA_ROB_ROWS,
  localparam int unsigned NCh = DMA_CHANNELS,
  localparam int unsigned NI = 2 * NCh   // word ports: [0, NCh) MM2S, [NCh, 2 NCh) S2MM
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // register bus (same-cycle answer)
  input  logic                   reg_valid_i,
  input  reg_req_t               reg_req_i,
  output logic                   reg_hit_o,
  output word_t                  reg_rdata_o,
  // word fabric initiators
  output logic      [NI-1:0]     req_valid_o,
  output word_req_t [NI-1:0]     req_o,
  input  logic      [NI-1:0]     req_ready_i,
  input  logic      [NI-1:0]     rsp_valid_i,
  input  row_t      [NI-1:0]     rsp_data_i,
  // token
  output logic                   tok_valid_o,
  input  logic                   tok_ready_i,
  output token_t                 tok_o,
  output logic [NI-1:0]          tok_src_o,     // which channel offers the token (one-hot)
  // error report
  output logic                   err_valid_o,
  output error_code_e            err_code_o,
  output logic                   err_dir_o,
  output logic [4:0]             err_channel_o,
  output logic [15:0]            err_detail_o,
  output logic [31:0]            err_addr_o,
  output logic                   busy_o,
  // trace monitor: per word port
  output mon_task_t  [NI-1:0]    mon_task_o,
  output mon_write_t [NI-1:0]    mon_write_o
);
  localparam int unsigned BdW = $clog2(Bds);

  // ---- BD store ----
  dma_bd_t [NI-1:0]      bd_rd;
  localparam int unsigned IterW = $bits(bd_rd[0].iter_current);
  word_t                 bd_mem_q [Bds * DMA_BD_WORDS];
  logic [Bds-1:0][IterW-1:0] iter_q, iter_d;
  logic [NI-1:0][BdW-1:0] bd_idx, wb_idx;
  logic [NI-1:0][IterW-1:0] wb_iter;
  logic [NI-1:0]         wb_valid;

  logic        wr, bd_hit;
  logic [19:0] off;
  logic [BdW-1:0] wr_bd;
  logic [3:0]  wr_word;
  assign wr      = reg_valid_i && reg_req_i.we;
  assign off     = reg_req_i.addr;
  assign bd_hit  = (off >= DMA_BD_OFFSET) && (off < DMA_BD_OFFSET + 20'(Bds * DMA_BD_STRIDE));
  logic [19:0] bd_off;
  assign bd_off  = off - DMA_BD_OFFSET;
  assign wr_bd   = BdW'(bd_off / 20'(DMA_BD_STRIDE));
  assign wr_word = bd_off[5:2];

  // iter_current lives in the engine (a run advances it), not in the BD words: where the field
  // sits in the BD (word, bit), from the generated struct
  function automatic int unsigned iter_lsb();
    dma_bd_t b;
    b              = '0;
    b.iter_current = '1;
    for (int unsigned k = 0; k < $bits(dma_bd_t); k++) if (b[k]) return k;
    return 0;
  endfunction
  localparam int unsigned IterLsb  = iter_lsb();
  localparam int unsigned IterWord = IterLsb / 32;
  localparam int unsigned IterBit  = IterLsb % 32;

  always_comb begin
    for (int unsigned i = 0; i < NI; i++) begin
      logic [DMA_BD_WORDS-1:0][31:0] w;
      for (int unsigned k = 0; k < DMA_BD_WORDS; k++) w[k] = bd_mem_q[int'(bd_idx[i]) * DMA_BD_WORDS + k];
      bd_rd[i]              = dma_bd_t'(w);
      bd_rd[i].iter_current = iter_q[bd_idx[i]];
    end
  end

  always_comb begin
    iter_d = iter_q;
    for (int unsigned i = 0; i < NI; i++) begin
      if (wb_valid[i]) iter_d[wb_idx[i]] = wb_iter[i];
    end
    if (wr && bd_hit && wr_word == 4'(IterWord)) iter_d[wr_bd] = reg_req_i.wdata[IterBit +: IterW];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) iter_q <= '0;
    else         iter_q <= iter_d;
  end

  always_ff @(posedge clk_i) begin
    if (wr && bd_hit) bd_mem_q[int'(wr_bd) * DMA_BD_WORDS + int'(wr_word)] <= reg_req_i.wdata;
  end

  // ---- control registers ----
  queue_push_t    push_w;        // the written word, as a queue push
  assign push_w = queue_push_t'(reg_req_i.wdata);
  // verilator lint_off UNUSEDSIGNAL
  dma_mm2s_ctrl_t mm2s_ctrl_w;   // the written word, as a channel control register
  dma_s2mm_ctrl_t s2mm_ctrl_w;
  // verilator lint_on UNUSEDSIGNAL
  assign mm2s_ctrl_w = dma_mm2s_ctrl_t'(reg_req_i.wdata);
  assign s2mm_ctrl_w = dma_s2mm_ctrl_t'(reg_req_i.wdata);
  logic [NI-1:0] push, ctl_reset, pause_q, pause_d;
  always_comb begin
    push      = '0;
    ctl_reset = '0;
    pause_d   = pause_q;
    for (int unsigned c = 0; c < NCh; c++) begin
      if (wr && off == DMA_MM2S_QUEUE_OFFSET + 20'(c * DMA_MM2S_QUEUE_STRIDE)) push[c] = 1'b1;
      if (wr && off == DMA_S2MM_QUEUE_OFFSET + 20'(c * DMA_S2MM_QUEUE_STRIDE)) push[NCh + c] = 1'b1;
      if (wr && off == DMA_MM2S_CTRL_OFFSET + 20'(c * DMA_MM2S_CTRL_STRIDE)) begin
        ctl_reset[c] = mm2s_ctrl_w.reset;
        pause_d[c]   = mm2s_ctrl_w.pause;
      end
      if (wr && off == DMA_S2MM_CTRL_OFFSET + 20'(c * DMA_S2MM_CTRL_STRIDE)) begin
        ctl_reset[NCh + c] = s2mm_ctrl_w.reset;
        pause_d[NCh + c]   = s2mm_ctrl_w.pause;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) pause_q <= '0;
    else         pause_q <= pause_d;
  end

  // ---- channels ----
  logic [NI-1:0]        ovf, fail, flush, tok_v, tok_r, ch_err, ch_busy, ch_error;
  error_code_e [NI-1:0] fail_code, ch_err_code;
  token_t [NI-1:0]      tok;
  logic [NI-1:0][15:0]  ch_err_detail, ch_done;
  logic [NI-1:0][31:0]  ch_err_addr, ch_bytes;
  logic [NI-1:0][4:0]   ch_pending;
  logic [NI-1:0][7:0]   ch_cur_bd;
  localparam int unsigned SCntW = $clog2(DMA_STREAM_DEPTH + 1);
  logic [NCh-1:0]             s_push, d_pop;
  logic [NCh-1:0][4:0]        s_n, d_n;
  row_t [NCh-1:0]             s_data, d_data;
  logic [NCh-1:0][SCntW-1:0]  s_count;

  // A failure reaches the partner channel one cycle later (registered: no loop between them).
  logic [NI-1:0]        fail_q;
  error_code_e [NI-1:0] fail_code_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fail_q      <= '0;
      fail_code_q <= {NI{ERROR_CODE_NONE}};
    end else begin
      fail_q      <= fail;
      fail_code_q <= fail_code;
    end
  end

  for (genvar i = 0; i < NI; i++) begin : g_ch
    localparam bit Mm2s = (i < NCh);
    localparam int unsigned C = Mm2s ? i : i - NCh;
    localparam int unsigned P = Mm2s ? i + NCh : i - NCh;  // partner
    logic       sp_o, sq_o;
    logic [4:0] sn_o;
    row_t       sd_o;
    ax_dma_chan #(
      .IsMm2s     (Mm2s),
      .Bds        (Bds),
      .Dims       (Dims),
      .SizeBits   (SizeBits),
      .StrideBits (StrideBits),
      .Padding    (Padding),
      .Cores      (Cores),
      .Channel    (C),
      .Row        (Row),
      .RobDepth   (RobDepth)
    ) u_chan (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .push_valid_i   (push[i]),
      .push_i         (push_w),
      .ovf_o          (ovf[i]),
      .ctl_reset_i    (ctl_reset[i]),
      .pause_i        (pause_q[i]),
      .bd_idx_o       (bd_idx[i]),
      .bd_i           (bd_rd[i]),
      .wb_valid_o     (wb_valid[i]),
      .wb_idx_o       (wb_idx[i]),
      .wb_iter_o      (wb_iter[i]),
      .req_valid_o    (req_valid_o[i]),
      .req_o          (req_o[i]),
      .req_ready_i    (req_ready_i[i]),
      .rsp_valid_i    (rsp_valid_i[i]),
      .rsp_data_i     (rsp_data_i[i]),
      .s_push_o       (sp_o),
      .s_pop_o        (sq_o),
      .s_n_o          (sn_o),
      .s_data_o       (sd_o),
      .s_count_i      (s_count[C]),
      .s_data_i       (Mm2s ? '0 : d_data[C]),
      .fail_o         (fail[i]),
      .fail_code_o    (fail_code[i]),
      .partner_fail_i (fail_q[P]),
      .partner_code_i (fail_code_q[P]),
      .flush_o        (flush[i]),
      .tok_valid_o    (tok_v[i]),
      .tok_ready_i    (tok_r[i]),
      .tok_o          (tok[i]),
      .err_valid_o    (ch_err[i]),
      .err_code_o     (ch_err_code[i]),
      .err_detail_o   (ch_err_detail[i]),
      .err_addr_o     (ch_err_addr[i]),
      .pending_o      (ch_pending[i]),
      .busy_o         (ch_busy[i]),
      .error_o        (ch_error[i]),
      .cur_bd_o       (ch_cur_bd[i]),
      .done_o         (ch_done[i]),
      .bytes_o        (ch_bytes[i]),
      .mon_task_o     (mon_task_o[i]),
      .mon_write_o    (mon_write_o[i])
    );
    if (Mm2s) begin : g_src
      assign s_push[C] = sp_o;
      assign s_n[C]    = sn_o;
      assign s_data[C] = sd_o;
      logic unused;
      assign unused = sq_o;
    end else begin : g_dst
      assign d_pop[C] = sq_o;
      assign d_n[C]   = sn_o;
      logic unused;
      assign unused = ^{sp_o, sd_o};
    end
  end

  for (genvar c = 0; c < NCh; c++) begin : g_pair
    ax_dma_wfifo #(.Depth(DMA_STREAM_DEPTH)) u_stream (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .clr_i      (flush[c] || flush[NCh + c]),
      .push_i     (s_push[c]),
      .push_n_i   (s_n[c]),
      .in_data_i  (s_data[c]),
      .pop_i      (d_pop[c]),
      .pop_n_i    (d_n[c]),
      .out_data_o (d_data[c]),
      .count_o    (s_count[c])
    );
  end

  // ---- tokens: one at a time, round-robin over the channels ----
  logic [$clog2(NI)-1:0] tok_idx;
  logic                  tok_any;
  logic [NI-1:0]         tok_gnt;
  ax_rr_arb #(.N(NI)) u_tok_arb (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .req_i   (tok_v),
    .ack_i   (tok_ready_i),
    .gnt_o   (tok_gnt),
    .idx_o   (tok_idx),
    .valid_o (tok_any)
  );
  assign tok_valid_o = tok_any;
  assign tok_o       = tok[tok_idx];
  assign tok_src_o   = tok_gnt;
  assign tok_r       = tok_ready_i ? tok_gnt : '0;

  // ---- error report: the lowest channel with an error this cycle ----
  always_comb begin
    err_valid_o   = 1'b0;
    err_code_o    = ERROR_CODE_NONE;
    err_dir_o     = 1'b0;
    err_channel_o = '0;
    err_detail_o  = '0;
    err_addr_o    = '0;
    for (int i = NI - 1; i >= 0; i--) begin
      if (ch_err[i] || ovf[i]) begin
        err_valid_o   = 1'b1;
        err_code_o    = ovf[i] ? ERROR_CODE_QUEUE_OVERFLOW : ch_err_code[i];
        err_dir_o     = (i < NCh);
        err_channel_o = 5'((i < NCh) ? i : i - NCh);
        err_detail_o  = ovf[i] ? push_w.start : ch_err_detail[i];
        err_addr_o    = ovf[i] ? '0 : ch_err_addr[i];
      end
    end
  end

  assign busy_o = |ch_busy || |ch_pending;

  // ---- register reads ----
  function automatic dma_s2mm_status_t chan_status(int unsigned i);  // MM2S status is alike
    dma_s2mm_status_t st;
    st         = '0;
    st.pending = ch_pending[i];
    st.busy    = ch_busy[i];
    st.error   = ch_error[i];
    st.cur_bd  = ch_cur_bd[i];
    st.done    = ch_done[i];
    return st;
  endfunction
  function automatic dma_s2mm_ctrl_t chan_ctrl(logic pause);  // reset self-clears: reads 0
    dma_s2mm_ctrl_t ct;
    ct       = '0;
    ct.pause = pause;
    return ct;
  endfunction

  always_comb begin
    reg_hit_o   = 1'b0;
    reg_rdata_o = '0;
    if (bd_hit) begin
      reg_hit_o   = 1'b1;
      reg_rdata_o = bd_mem_q[int'(wr_bd) * DMA_BD_WORDS + int'(wr_word)];
      if (wr_word == 4'(IterWord)) reg_rdata_o[IterBit +: IterW] = iter_q[wr_bd];
    end
    for (int unsigned c = 0; c < NCh; c++) begin
      if (off == DMA_MM2S_CTRL_OFFSET + 20'(c * DMA_MM2S_CTRL_STRIDE)) begin
        reg_hit_o   = 1'b1;
        reg_rdata_o = chan_ctrl(pause_q[c]);
      end
      if (off == DMA_S2MM_CTRL_OFFSET + 20'(c * DMA_S2MM_CTRL_STRIDE)) begin
        reg_hit_o   = 1'b1;
        reg_rdata_o = chan_ctrl(pause_q[NCh + c]);
      end
      if (off == DMA_MM2S_QUEUE_OFFSET + 20'(c * DMA_MM2S_QUEUE_STRIDE) ||
          off == DMA_S2MM_QUEUE_OFFSET + 20'(c * DMA_S2MM_QUEUE_STRIDE)) begin
        reg_hit_o = 1'b1;  // write-only: reads 0
      end
      if (off == DMA_MM2S_STATUS_OFFSET + 20'(c * DMA_MM2S_STATUS_STRIDE)) begin
        reg_hit_o   = 1'b1;
        reg_rdata_o = chan_status(c);
      end
      if (off == DMA_S2MM_STATUS_OFFSET + 20'(c * DMA_S2MM_STATUS_STRIDE)) begin
        reg_hit_o   = 1'b1;
        reg_rdata_o = chan_status(NCh + c);
      end
      if (off == DMA_MM2S_BYTES_OFFSET + 20'(c * DMA_MM2S_BYTES_STRIDE)) begin
        reg_hit_o   = 1'b1;
        reg_rdata_o = ch_bytes[c];
      end
      if (off == DMA_S2MM_BYTES_OFFSET + 20'(c * DMA_S2MM_BYTES_STRIDE)) begin
        reg_hit_o   = 1'b1;
        reg_rdata_o = ch_bytes[NCh + c];
      end
    end
  end
endmodule
