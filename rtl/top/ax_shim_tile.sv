// Shim tile (row 0): identity and configuration registers, device CTRL/STATUS, the cycle
// counter, SCRATCH, the tile's error registers, SysDMA and the token unit that collects the
// completion tokens of every tile (TOKEN_POP). CTRL.soft_reset pulses soft_reset_o for one
// cycle: every tile (this one's SysDMA, token FIFO and error registers included) resets; the
// cycle counter and the host interface keep running.
module ax_shim_tile
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Cores   = 1,  // cores in the build (CONFIG, BD core range)
  parameter int unsigned NTokSrc = 2,  // token sources besides SysDMA (mem tile, cores)
  localparam int unsigned NI = 2 * DMA_CHANNELS
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  output logic                  soft_reset_o,
  // register bus
  input  logic                  reg_valid_i,
  input  reg_req_t              reg_req_i,
  output logic                  reg_rsp_valid_o,
  output logic                  reg_rsp_hit_o,
  output word_t                 reg_rsp_rdata_o,
  // SysDMA word initiators
  output logic      [NI-1:0]    dma_req_valid_o,
  output word_req_t [NI-1:0]    dma_req_o,
  input  logic      [NI-1:0]    dma_req_ready_i,
  input  logic      [NI-1:0]    dma_rsp_valid_i,
  input  row_t      [NI-1:0]    dma_rsp_data_i,
  // tokens of the other tiles
  input  logic   [NTokSrc-1:0]  tok_valid_i,
  output logic   [NTokSrc-1:0]  tok_ready_o,
  input  token_t [NTokSrc-1:0]  tok_i,
  // device status inputs
  input  logic                  others_busy_i,
  input  logic                  others_err_i,
  output logic                  busy_o,   // STATUS.busy
  output logic [63:0]           cycle_o,
  // trace monitors
  output mon_task_t  [NI-1:0]   mon_dma_task_o,
  output mon_write_t [NI-1:0]   mon_dma_write_o,
  output logic                  mon_tok_valid_o,
  output token_t                mon_tok_o
);
  logic soft_q, trst_n;
  assign trst_n       = rst_ni && !soft_q;
  assign soft_reset_o = soft_q;

  // ---- register decode ----
  logic  act, wr, rd, hit, dma_hit, rd_pop, err_clr;
  word_t rdata, dma_rdata, scratch_q, err_status, err_info, err_addr, cyc_hi_q, dropped;
  logic [19:0] off;
  logic [63:0] cycle_q;
  logic [TOKEN_CNT_W-1:0] tok_count;
  word_t       tok_head;
  shim_config_t config_w;
  shim_status_t status_w;
  // verilator lint_off UNUSEDSIGNAL
  shim_ctrl_t   ctrl_w;     // the written word as CTRL
  // verilator lint_on UNUSEDSIGNAL
  assign ctrl_w = shim_ctrl_t'(reg_req_i.wdata);
  logic         sys_busy;

  assign off = reg_req_i.addr;
  assign wr  = act && reg_req_i.we;
  assign rd  = act && !reg_req_i.we;

  always_comb begin
    config_w                    = '0;
    config_w.cores              = 4'(Cores);
    config_w.columns            = 4'(COLUMNS);
    config_w.mvm_rows_per_cycle = 8'(MVM_ROWS_PER_CYCLE);
    config_w.imc_tiles          = 8'(IMC_TILES);
    status_w        = '0;
    status_w.busy   = busy_o;
    status_w.error  = (err_status != '0) || others_err_i;
    status_w.tokens = 9'(tok_count);
  end
  assign busy_o = sys_busy || others_busy_i;

  always_comb begin
    hit   = 1'b1;
    rdata = '0;
    unique case (off)
      SHIM_ID_OFFSET:            rdata = ID_MAGIC;
      SHIM_VERSION_OFFSET:       rdata = SHIM_VERSION_RESET;
      SHIM_SPEC_HASH_LO_OFFSET:  rdata = SPEC_HASH[31:0];
      SHIM_SPEC_HASH_HI_OFFSET:  rdata = SPEC_HASH[63:32];
      SHIM_CONFIG_OFFSET:        rdata = config_w;
      SHIM_ERROR_STATUS_OFFSET:  rdata = err_status;
      SHIM_ERROR_INFO_OFFSET:    rdata = err_info;
      SHIM_ERROR_ADDR_OFFSET:    rdata = err_addr;
      SHIM_CTRL_OFFSET:          rdata = '0;  // soft_reset self-clears
      SHIM_STATUS_OFFSET:        rdata = status_w;
      SHIM_CYCLE_LO_OFFSET:      rdata = cycle_q[31:0];
      SHIM_CYCLE_HI_OFFSET:      rdata = cyc_hi_q;
      SHIM_TOKEN_POP_OFFSET:     rdata = tok_head;
      SHIM_TOKEN_DROPPED_OFFSET: rdata = dropped;
      SHIM_SCRATCH_OFFSET:       rdata = scratch_q;
      default: begin
        hit   = dma_hit;
        rdata = dma_rdata;
      end
    endcase
  end

  // The register side (the response, CTRL.soft_reset, SCRATCH, the CYCLE_HI latch, the error
  // registers) runs on a gated clock, on while the host accesses the tile, a soft reset pulses
  // or an error is reported: the tiles' logic that reads soft_reset_o is evaluated only then.
  // The cycle counter stays on clk_i.
  logic clk_reg, tok_drop, dma_err_valid;
  ax_clk_gate u_cg_reg (
    .clk_i (clk_i), .rst_ni (rst_ni), .en_i (reg_valid_i || soft_q || dma_err_valid || tok_drop), .clk_o (clk_reg)
  );
  ax_reg_resp u_resp (
    .clk_i       (clk_reg),
    .rst_ni      (rst_ni),
    .reg_valid_i (reg_valid_i),
    .reg_req_i   (reg_req_i),
    .hit_i       (hit),
    .rdata_i     (rdata),
    .late_i      (1'b0),
    .late_data_i ('0),
    .act_o       (act),
    .rsp_valid_o (reg_rsp_valid_o),
    .rsp_hit_o   (reg_rsp_hit_o),
    .rsp_rdata_o (reg_rsp_rdata_o)
  );

  assign rd_pop  = rd && off == SHIM_TOKEN_POP_OFFSET;
  assign err_clr = wr && off == SHIM_ERROR_STATUS_OFFSET;

  always_ff @(posedge clk_reg or negedge rst_ni) begin
    if (!rst_ni) begin
      soft_q    <= 1'b0;
      cyc_hi_q  <= '0;
      scratch_q <= '0;
    end else begin
      soft_q  <= wr && off == SHIM_CTRL_OFFSET && ctrl_w.soft_reset;
      if (rd && off == SHIM_CYCLE_LO_OFFSET) cyc_hi_q <= cycle_q[63:32];
      if (wr && off == SHIM_SCRATCH_OFFSET) scratch_q <= reg_req_i.wdata;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cycle_q <= '0;
    else         cycle_q <= cycle_q + 64'd1;
  end
  assign cycle_o = cycle_q;

  // ---- SysDMA ----
  logic        dma_tok_valid, dma_tok_ready, dma_err_dir;
  token_t      dma_tok;
  error_code_e dma_err_code;
  logic [4:0]  dma_err_channel;
  logic [15:0] dma_err_detail;
  logic [31:0] dma_err_addr;
  logic [NI-1:0] dma_tok_src;

  // SysDMA's clock (as CoreDMA's in the core tile): on while a channel is busy or a task queued,
  // a token or request waits, a response arrives, a register access or a soft reset comes.
  logic clk_dma;
  ax_clk_gate u_cg_dma (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .en_i  (sys_busy || dma_tok_valid || (|dma_req_valid_o) || (|dma_rsp_valid_i) || reg_valid_i || soft_q),
    .clk_o (clk_dma)
  );
  ax_dma #(
    .Bds          (SYSDMA_BDS),
    .Dims         (SYSDMA_DIMS),
    .SizeBits     (SYSDMA_SIZE_BITS),
    .StrideBits   (SYSDMA_STRIDE_BITS),
    .Padding      (SYSDMA_PADDING != 0),
    .Cores        (Cores),
    .Row          (SHIM_ROW)
  ) u_sysdma (
    .clk_i         (clk_dma),
    .rst_ni        (trst_n),
    .reg_valid_i   (act),
    .reg_req_i     (reg_req_i),
    .reg_hit_o     (dma_hit),
    .reg_rdata_o   (dma_rdata),
    .req_valid_o   (dma_req_valid_o),
    .req_o         (dma_req_o),
    .req_ready_i   (dma_req_ready_i),
    .rsp_valid_i   (dma_rsp_valid_i),
    .rsp_data_i    (dma_rsp_data_i),
    .tok_valid_o   (dma_tok_valid),
    .tok_ready_i   (dma_tok_ready),
    .tok_o         (dma_tok),
    .tok_src_o     (dma_tok_src),
    .err_valid_o   (dma_err_valid),
    .err_code_o    (dma_err_code),
    .err_dir_o     (dma_err_dir),
    .err_channel_o (dma_err_channel),
    .err_detail_o  (dma_err_detail),
    .err_addr_o    (dma_err_addr),
    .busy_o        (sys_busy),
    .mon_task_o    (mon_dma_task_o),
    .mon_write_o   (mon_dma_write_o)
  );

  // ---- token unit: SysDMA first, then the other tiles ----
  logic [NTokSrc:0] tu_ready;
  ax_token_unit #(.N(NTokSrc + 1)) u_tokens (
    .clk_i       (clk_i),
    .rst_ni      (trst_n),
    .tok_valid_i ({tok_valid_i, dma_tok_valid}),
    .tok_ready_o (tu_ready),
    .tok_i       ({tok_i, dma_tok}),
    .pop_i       (rd_pop),
    .pop_data_o  (tok_head),
    .count_o     (tok_count),
    .dropped_o   (dropped),
    .drop_o      (tok_drop),
    .mon_valid_o (mon_tok_valid_o),
    .mon_token_o (mon_tok_o)
  );
  assign dma_tok_ready = tu_ready[0];
  assign tok_ready_o   = tu_ready[NTokSrc:1];

  // ---- error registers: a SysDMA error wins over a token overflow in the same cycle ----
  ax_err_rec u_err (
    .clk_i         (clk_reg),
    .rst_ni        (trst_n),
    .err_valid_i   (dma_err_valid || tok_drop),
    .err_code_i    (dma_err_valid ? dma_err_code : ERROR_CODE_TOKEN_OVERFLOW),
    .err_dir_i     (dma_err_valid && dma_err_dir),
    .err_channel_i (dma_err_valid ? dma_err_channel : 5'd0),
    .err_detail_i  (dma_err_valid ? dma_err_detail : 16'd0),
    .err_addr_i    (dma_err_valid ? dma_err_addr : 32'd0),
    .clr_valid_i   (err_clr),
    .clr_mask_i    (reg_req_i.wdata),
    .status_o      (err_status),
    .info_o        (err_info),
    .addr_o        (err_addr)
  );

  logic unused;
  assign unused = ^{dma_tok_src};
endmodule
