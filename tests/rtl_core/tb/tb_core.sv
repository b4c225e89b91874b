// Testbench: one ax_core_tile driven through its register bus only (the hand-assembled program
// of the C++ side); the DMA fabric is absent (CoreDMA requests are never granted) and the
// token port always accepts.
module tb_core
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        reg_valid_i,
  input  reg_req_t    reg_req_i,
  output logic        reg_rsp_valid_o,
  output logic        reg_rsp_hit_o,
  output word_t       reg_rsp_rdata_o,
  output logic        tok_valid_o,
  output token_t      tok_o,
  output logic        busy_o,
  output logic        err_o,
  output mon_task_t [CORE_QUEUES-1:0] mon_cmd_o,
  // the tile's gated clocks (tile, MVMEXE datapath, DWPU datapath, CoreDMA), for the gating test
  output logic [3:0]  clk_on_o
);
  localparam int unsigned DmaNI = 2 * DMA_CHANNELS;
  logic bar_arrive, bar_release;
  logic [7:0] bar_id, bar_mask;

  ax_core_tile #(.Row(FIRST_CORE_ROW), .Cores(1), .FabricNI(4)) u_tile (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .clr_i           (1'b0),
    .reg_valid_i     (reg_valid_i),
    .reg_req_i       (reg_req_i),
    .reg_rsp_valid_o (reg_rsp_valid_o),
    .reg_rsp_hit_o   (reg_rsp_hit_o),
    .reg_rsp_rdata_o (reg_rsp_rdata_o),
    .l1_req_valid_i  (1'b0),
    .l1_req_i        ('0),
    .l1_req_id_i     ('0),
    .l1_req_ready_o  (),
    .l1_rsp_valid_o  (),
    .l1_rsp_data_o   (),
    .dma_req_valid_o (),
    .dma_req_o       (),
    .dma_req_ready_i ({DmaNI{1'b0}}),
    .dma_rsp_valid_i ({DmaNI{1'b0}}),
    .dma_rsp_data_i  ('0),
    .tok_valid_o     (tok_valid_o),
    .tok_ready_i     (1'b1),
    .tok_o           (tok_o),
    .bar_arrive_o    (bar_arrive),
    .bar_id_o        (bar_id),
    .bar_mask_o      (bar_mask),
    .bar_release_i   (bar_release),
    .busy_o          (busy_o),
    .err_o           (err_o),
    .mon_cmd_o       (mon_cmd_o),
    .mon_mvm_odr_o   (),
    .mon_dw_odr_o    (),
    .mon_loadimc_o   (),
    .mon_dma_task_o  (),
    .mon_dma_write_o ()
  );

  assign clk_on_o = {u_tile.clk, u_tile.clk_mvm, u_tile.clk_dw, u_tile.clk_dma};

  ax_barrier_net #(.Cores(1)) u_bar (
    .arrive_i  (bar_arrive),
    .id_i      (bar_id),
    .mask_i    (bar_mask),
    .release_o (bar_release)
  );
endmodule
