// Mem tile (row 1): the column's L2 (l2_bytes in l2_banks banks of 64-byte rows), MemDMA, the
// tile's error registers, MEM_STATUS and the DBG_MEM window. Each L2 bank is one target of the
// DMA word fabric; the host debug port has the highest priority on the banks (it never waits,
// a fabric word that loses its bank to it retries the next cycle).
module ax_mem_tile
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Cores    = 1,
  parameter int unsigned FabricNI = 4,
  localparam int unsigned IdW = (FabricNI > 1) ? $clog2(FabricNI) : 1,
  localparam int unsigned NI = 2 * DMA_CHANNELS,
  localparam int unsigned NB = L2_BANKS
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // register bus
  input  logic                          reg_valid_i,
  input  reg_req_t                      reg_req_i,
  output logic                          reg_rsp_valid_o,
  output logic                          reg_rsp_hit_o,
  output word_t                         reg_rsp_rdata_o,
  // L2 bank targets of the word fabric
  input  logic      [NB-1:0]            l2_req_valid_i,
  input  word_req_t [NB-1:0]            l2_req_i,
  input  logic      [NB-1:0][IdW-1:0]   l2_req_id_i,
  output logic      [NB-1:0]            l2_req_ready_o,
  output logic      [NB-1:0][FabricNI-1:0] l2_rsp_valid_o,
  output row_t      [NB-1:0]            l2_rsp_data_o,
  // MemDMA word initiators
  output logic      [NI-1:0]            dma_req_valid_o,
  output word_req_t [NI-1:0]            dma_req_o,
  input  logic      [NI-1:0]            dma_req_ready_i,
  input  logic      [NI-1:0]            dma_rsp_valid_i,
  input  row_t      [NI-1:0]            dma_rsp_data_i,
  // token, status
  output logic                          tok_valid_o,
  input  logic                          tok_ready_i,
  output token_t                        tok_o,
  output logic                          busy_o,
  output logic                          err_o,
  // trace monitors
  output mon_task_t  [NI-1:0]           mon_dma_task_o,
  output mon_write_t [NI-1:0]           mon_dma_write_o
);
  // ---- L2: port 0 = host debug, 1 + b = fabric bank b ----
  logic     [NB:0] m_valid, m_gnt, m_rsp;
  mem_req_t [NB:0] m_req;
  row_t     [NB:0] m_rdata;

  // The L2 and its fabric ports run on a gated clock: on while the fabric or the host asks a
  // bank, and the gate's tail cycles after (the one-cycle answers complete and clear). The read
  // data and response bits change only then; between requests nothing of the L2 is evaluated.
  logic clk_l2;
  ax_clk_gate u_cg_l2 (
    .clk_i (clk_i), .rst_ni (rst_ni), .en_i ((|l2_req_valid_i) || reg_valid_i), .clk_o (clk_l2)
  );
  ax_banked_mem #(
    .NP    (NB + 1),
    .Banks (NB),
    .Rows  (L2_ROWS)
  ) u_l2 (
    .clk_i       (clk_l2),
    .rst_ni      (rst_ni),
    .req_valid_i (m_valid),
    .req_i       (m_req),
    .gnt_o       (m_gnt),
    .rsp_valid_o (m_rsp),
    .rdata_o     (m_rdata)
  );

  for (genvar b = 0; b < NB; b++) begin : g_port
    ax_word_port #(.NI(FabricNI)) u_port (
      .clk_i         (clk_l2),
      .rst_ni        (rst_ni),
      .t_req_valid_i (l2_req_valid_i[b]),
      .t_req_i       (l2_req_i[b]),
      .t_req_id_i    (l2_req_id_i[b]),
      .t_req_ready_o (l2_req_ready_o[b]),
      .t_rsp_valid_o (l2_rsp_valid_o[b]),
      .t_rsp_data_o  (l2_rsp_data_o[b]),
      .m_req_valid_o (m_valid[1 + b]),
      .m_req_o       (m_req[1 + b]),
      .m_gnt_i       (m_gnt[1 + b]),
      .m_rdata_i     (m_rdata[1 + b])
    );
  end

  // ---- registers ----
  logic        act, wr, rd, hit, dma_hit, dbg_hit, dbg_access, err_clr, dma_busy;
  word_t       rdata, dma_rdata, dbg_addr_q, err_status, err_info, err_addr, dbg_word;
  logic [3:0]  dbg_sel_q;
  logic [19:0] off;
  mem_mem_status_t status_w;

  assign off        = reg_req_i.addr;
  assign wr         = act && reg_req_i.we;
  assign rd         = act && !reg_req_i.we;
  assign dbg_hit    = (off == MEM_DBG_MEM_DATA_OFFSET) && (32'(dbg_addr_q) < L2_BYTES);
  assign dbg_access = act && dbg_hit;

  always_comb begin
    status_w      = '0;
    status_w.busy = dma_busy;
  end

  always_comb begin
    hit   = 1'b1;
    rdata = '0;
    unique case (off)
      MEM_MEM_STATUS_OFFSET:    rdata = status_w;
      MEM_ERROR_STATUS_OFFSET:  rdata = err_status;
      MEM_ERROR_INFO_OFFSET:    rdata = err_info;
      MEM_ERROR_ADDR_OFFSET:    rdata = err_addr;
      MEM_DBG_MEM_ADDR_OFFSET:  rdata = dbg_addr_q;
      MEM_DBG_MEM_DATA_OFFSET:  hit   = dbg_hit;  // data arrives late, from the SRAM
      default: begin
        hit   = dma_hit;
        rdata = dma_rdata;
      end
    endcase
  end

  // The register side (the response, DBG_MEM_ADDR, the error registers) runs on a gated clock,
  // on while the host accesses the tile or MemDMA reports an error.
  logic clk_reg, dma_err_valid;
  ax_clk_gate u_cg_reg (.clk_i (clk_i), .rst_ni (rst_ni), .en_i (reg_valid_i || dma_err_valid), .clk_o (clk_reg));
  ax_reg_resp u_resp (
    .clk_i       (clk_reg),
    .rst_ni      (rst_ni),
    .reg_valid_i (reg_valid_i),
    .reg_req_i   (reg_req_i),
    .hit_i       (hit),
    .rdata_i     (rdata),
    .late_i      (off == MEM_DBG_MEM_DATA_OFFSET),
    .late_data_i (dbg_word),
    .act_o       (act),
    .rsp_valid_o (reg_rsp_valid_o),
    .rsp_hit_o   (reg_rsp_hit_o),
    .rsp_rdata_o (reg_rsp_rdata_o)
  );

  // Debug port: one word of the 64-byte row at DBG_MEM_ADDR.
  always_comb begin
    m_valid[0]    = dbg_access;
    m_req[0]      = '0;
    m_req[0].we   = reg_req_i.we;
    m_req[0].row  = MEM_ROW_AW'(dbg_addr_q >> $clog2(ROW_BYTES));
    m_req[0].be   = row_be_t'(64'hF) << (4 * dbg_addr_q[5:2]);
    m_req[0].wdata = {(ROW_BITS / 32){reg_req_i.wdata}};
  end
  assign dbg_word = m_rdata[0][32*dbg_sel_q +: 32];

  always_ff @(posedge clk_reg or negedge rst_ni) begin
    if (!rst_ni) begin
      dbg_addr_q <= '0;
      dbg_sel_q  <= '0;
    end else begin
      if (wr && off == MEM_DBG_MEM_ADDR_OFFSET) dbg_addr_q <= {reg_req_i.wdata[31:2], 2'b00};
      if (dbg_access) begin
        dbg_addr_q <= dbg_addr_q + 32'd4;
        dbg_sel_q  <= dbg_addr_q[5:2];
      end
    end
  end
  assign err_clr = wr && off == MEM_ERROR_STATUS_OFFSET;

  // ---- MemDMA ----
  logic        dma_err_dir;
  error_code_e dma_err_code;
  logic [4:0]  dma_err_channel;
  logic [15:0] dma_err_detail;
  logic [31:0] dma_err_addr;
  logic [NI-1:0] dma_tok_src;

  // MemDMA's clock (as CoreDMA's in the core tile): on while a channel is busy or a task queued,
  // a token or request waits, a response arrives or a register access comes.
  logic clk_dma;
  ax_clk_gate u_cg_dma (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .en_i  (dma_busy || tok_valid_o || (|dma_req_valid_o) || (|dma_rsp_valid_i) || reg_valid_i),
    .clk_o (clk_dma)
  );
  ax_dma #(
    .Bds          (MEMDMA_BDS),
    .Dims         (MEMDMA_DIMS),
    .SizeBits     (MEMDMA_SIZE_BITS),
    .StrideBits   (MEMDMA_STRIDE_BITS),
    .Padding      (MEMDMA_PADDING != 0),
    .Cores        (Cores),
    .Row          (MEM_ROW)
  ) u_memdma (
    .clk_i         (clk_dma),
    .rst_ni        (rst_ni),
    .reg_valid_i   (act),
    .reg_req_i     (reg_req_i),
    .reg_hit_o     (dma_hit),
    .reg_rdata_o   (dma_rdata),
    .req_valid_o   (dma_req_valid_o),
    .req_o         (dma_req_o),
    .req_ready_i   (dma_req_ready_i),
    .rsp_valid_i   (dma_rsp_valid_i),
    .rsp_data_i    (dma_rsp_data_i),
    .tok_valid_o   (tok_valid_o),
    .tok_ready_i   (tok_ready_i),
    .tok_o         (tok_o),
    .tok_src_o     (dma_tok_src),
    .err_valid_o   (dma_err_valid),
    .err_code_o    (dma_err_code),
    .err_dir_o     (dma_err_dir),
    .err_channel_o (dma_err_channel),
    .err_detail_o  (dma_err_detail),
    .err_addr_o    (dma_err_addr),
    .busy_o        (dma_busy),
    .mon_task_o    (mon_dma_task_o),
    .mon_write_o   (mon_dma_write_o)
  );
  assign busy_o = dma_busy;

  ax_err_rec u_err (
    .clk_i         (clk_reg),
    .rst_ni        (rst_ni),
    .err_valid_i   (dma_err_valid),
    .err_code_i    (dma_err_code),
    .err_dir_i     (dma_err_dir),
    .err_channel_i (dma_err_channel),
    .err_detail_i  (dma_err_detail),
    .err_addr_i    (dma_err_addr),
    .clr_valid_i   (err_clr),
    .clr_mask_i    (reg_req_i.wdata),
    .status_o      (err_status),
    .info_o        (err_info),
    .addr_o        (err_addr)
  );
  assign err_o = (err_status != '0);

  logic unused;
  assign unused = ^{dma_tok_src, m_gnt[0], m_rsp, rd};
endmodule
