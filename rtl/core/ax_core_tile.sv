// The AI core tile (rtl/core/README.md "ax_core_tile ports"): L1, IMC + LoadIMC, the MVMEXE
// datapath, the command processor, CMD_MEM, CoreDMA, core registers, perf counters and the
// watchdog. Register bus: a write is answered in the cycle it appears, a read one cycle later
// (DBG_MEM_DATA waits for its L1 bank). The DWPU datapath (ax_datapath of kind DWPU, with its own DPU
// and IFD1) runs beside the MVMEXE one on its own L1 ports. Not built yet: DBG_MEM_SEL = IMC
// (reads 0).
// verilator lint_off PINCONNECTEMPTY
module ax_core_tile
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Row      = FIRST_CORE_ROW,
  parameter int unsigned Cores    = CORES,
  parameter int unsigned FabricNI = 4,
  localparam int unsigned IdW   = (FabricNI > 1) ? $clog2(FabricNI) : 1,
  localparam int unsigned DmaNI = 2 * DMA_CHANNELS
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        clr_i,
  input  logic                        reg_valid_i,
  input  reg_req_t                    reg_req_i,
  output logic                        reg_rsp_valid_o,
  output logic                        reg_rsp_hit_o,
  output word_t                       reg_rsp_rdata_o,
  input  logic                        l1_req_valid_i,
  input  word_req_t                   l1_req_i,
  input  logic [IdW-1:0]              l1_req_id_i,
  output logic                        l1_req_ready_o,
  output logic [FabricNI-1:0]         l1_rsp_valid_o,
  output row_t                        l1_rsp_data_o,
  output logic      [DmaNI-1:0]       dma_req_valid_o,
  output word_req_t [DmaNI-1:0]       dma_req_o,
  input  logic      [DmaNI-1:0]       dma_req_ready_i,
  input  logic      [DmaNI-1:0]       dma_rsp_valid_i,
  input  row_t      [DmaNI-1:0]       dma_rsp_data_i,
  output logic                        tok_valid_o,
  input  logic                        tok_ready_i,
  output token_t                      tok_o,
  output logic                        bar_arrive_o,
  output logic [7:0]                  bar_id_o,
  output logic [7:0]                  bar_mask_o,
  input  logic                        bar_release_i,
  output logic                        busy_o,
  output logic                        err_o,
  output mon_task_t [CORE_QUEUES-1:0] mon_cmd_o,
  output mon_write_t                  mon_mvm_odr_o,
  output mon_write_t                  mon_dw_odr_o,
  output mon_write_t                  mon_loadimc_o,
  output mon_task_t  [DmaNI-1:0]      mon_dma_task_o,
  output mon_write_t [DmaNI-1:0]      mon_dma_write_o
);
  localparam int unsigned NQ = CORE_QUEUES;

  // ---- clock gates: the tile's logic runs on `clk`, clk_i gated off while the tile is idle ----
  // Active: a queue, unit or DMA channel busy, a token or DMA request waiting, the barrier held,
  // or an input event (register access, fabric access to L1, DMA response, barrier release,
  // soft reset); the gate keeps the clock 8 cycles after the last active cycle, so the
  // one-cycle responses and pulses an event leaves behind (register read data, the L1 word
  // port's answer, a monitor record) complete and clear. No state of an idle tile changes in
  // an idle cycle, so a gated cycle is the same as a clocked one. Inside the tile the two
  // datapaths and CoreDMA have gates of their own (below): the DWPU datapath costs nothing
  // while only the MVM runs, and the other way round.
  logic clk, active;
  assign active = busy_o || tok_valid_o || bar_arrive_o || (|dma_req_valid_o) || reg_valid_i ||
                  l1_req_valid_i || (|dma_rsp_valid_i) || bar_release_i || clr_i;
  ax_clk_gate u_cg (.clk_i (clk_i), .rst_ni (rst_ni), .en_i (active), .clk_o (clk));

  // ---- register bus front end ----
  logic        wr, rd_new, rd_pend_q, dbg_wait_q, soft_q, clr;
  logic [19:0] off;
  assign off = reg_req_i.addr;
  assign wr  = reg_valid_i && reg_req_i.we;
  logic is_dbg_data, is_cmd;
  assign is_dbg_data = (off == CORE_DBG_MEM_DATA_OFFSET);
  assign is_cmd      = (off >= CORE_CMD_MEM_OFFSET) && (off < CORE_CMD_MEM_OFFSET + 20'(CMD_MEM_BYTES));

  logic [1:0]  dbg_sel_q;
  logic [31:0] dbg_addr_q;
  logic        dbg_l1, dbg_gnt, dbg_rsp;
  word_t       dbg_rdata;
  assign dbg_l1 = (dbg_sel_q == 2'd0);
  // a write is answered at once, except DBG_MEM_DATA into L1 (when its bank grants)
  logic wr_done;
  assign wr_done = wr && !(is_dbg_data && dbg_l1 && !dbg_gnt);
  assign rd_new  = reg_valid_i && !reg_req_i.we && !rd_pend_q && !dbg_wait_q;
  assign clr     = clr_i || soft_q;
  // the written word as each register it may be (generated register types)
  // verilator lint_off UNUSEDSIGNAL
  core_core_ctrl_t    w_core_ctrl;
  core_q_ctrl_t       w_q_ctrl;
  core_wdog_status_t  w_wdog_status;
  core_dbg_mem_sel_t  w_dbg_mem_sel;
  // verilator lint_on UNUSEDSIGNAL
  assign w_core_ctrl   = core_core_ctrl_t'(reg_req_i.wdata);
  assign w_q_ctrl      = core_q_ctrl_t'(reg_req_i.wdata);
  assign w_wdog_status = core_wdog_status_t'(reg_req_i.wdata);
  assign w_dbg_mem_sel = core_dbg_mem_sel_t'(reg_req_i.wdata);

  // ---- CMD_MEM ----
  word_t             cmd_q [CMD_WORDS];
  logic              cmd_rd;
  logic [CMD_AW-1:0] cmd_addr;
  word_t             cmd_data_q, cmd_host_q;
  logic [CMD_AW-1:0] cmd_off;
  assign cmd_off = CMD_AW'((off - CORE_CMD_MEM_OFFSET) >> 2);
  always_ff @(posedge clk) begin
    if (wr && is_cmd) cmd_q[cmd_off] <= reg_req_i.wdata;
    if (cmd_rd)       cmd_data_q <= cmd_q[cmd_addr];
    cmd_host_q <= cmd_q[cmd_off];
  end

  // ---- L1 ----
  logic     [L1P_UNITS-1:0] l1_v, l1_g, l1_rv;
  mem_req_t [L1P_UNITS-1:0] l1_r;
  row_t     [L1P_UNITS-1:0] l1_rd;
  logic     ifd_rv, ifd1_rv, odr_rv, li_rv;
  mem_req_t ifd_r, ifd1_r, odr_r, li_r;
  logic     dw_ifd_rv, dw_ifd1_rv, dw_w_rv, dw_odr_rv;
  mem_req_t dw_ifd_r, dw_ifd1_r, dw_w_r, dw_odr_r;
  always_comb begin
    l1_v = '0;
    l1_r = '0;
    l1_v[L1P_MVM_ODR]  = odr_rv;
    l1_r[L1P_MVM_ODR]  = odr_r;
    l1_v[L1P_MVM_IFD0] = ifd_rv;
    l1_r[L1P_MVM_IFD0] = ifd_r;
    l1_v[L1P_MVM_IFD1] = ifd1_rv;
    l1_r[L1P_MVM_IFD1] = ifd1_r;
    l1_v[L1P_LOADIMC]  = li_rv;
    l1_r[L1P_LOADIMC]  = li_r;
    l1_v[L1P_DW_ODR]   = dw_odr_rv;
    l1_r[L1P_DW_ODR]   = dw_odr_r;
    l1_v[L1P_DW_IFD0]  = dw_ifd_rv;
    l1_r[L1P_DW_IFD0]  = dw_ifd_r;
    l1_v[L1P_DW_IFD1]  = dw_ifd1_rv;
    l1_r[L1P_DW_IFD1]  = dw_ifd1_r;
    l1_v[L1P_DWPU_W]   = dw_w_rv;
    l1_r[L1P_DWPU_W]   = dw_w_r;
  end

  ax_l1 #(.NI(FabricNI)) u_l1 (
    .clk_i           (clk),
    .rst_ni          (rst_ni),
    .req_valid_i     (l1_v),
    .req_i           (l1_r),
    .gnt_o           (l1_g),
    .rsp_valid_o     (l1_rv),
    .rdata_o         (l1_rd),
    .w_req_valid_i   (l1_req_valid_i),
    .w_req_i         (l1_req_i),
    .w_req_id_i      (l1_req_id_i),
    .w_req_ready_o   (l1_req_ready_o),
    .w_rsp_valid_o   (l1_rsp_valid_o),
    .w_rsp_data_o    (l1_rsp_data_o),
    .dbg_valid_i     (reg_valid_i && is_dbg_data && dbg_l1 && !rd_pend_q && !dbg_wait_q),
    .dbg_we_i        (reg_req_i.we),
    .dbg_addr_i      (dbg_addr_q),
    .dbg_wdata_i     (reg_req_i.wdata),
    .dbg_gnt_o       (dbg_gnt),
    .dbg_rsp_valid_o (dbg_rsp),
    .dbg_rdata_o     (dbg_rdata)
  );

  // ---- IMC, LoadIMC, MVMEXE datapath ----
  logic imc_begin, imc_wr, imc_setv, imc_count, imc_stale;
  logic [7:0] imc_begin_id, imc_id, imc_mid, imc_vt;
  logic [TILE_AW-1:0] imc_wtile, imc_rtile;
  logic [5:0] imc_wrow;
  row_t imc_wdata;
  logic [IMC_TILE_ROWS*ROW_BITS-1:0] imc_rdata;
  logic [31:0] imc_stale_reads;

  ax_imc u_imc (
    .clk_i (clk), .rst_ni (rst_ni), .clr_i (clr),
    .begin_i (imc_begin), .begin_id_i (imc_begin_id), .wr_valid_i (imc_wr),
    .wr_tile_i (imc_wtile), .wr_row_i (imc_wrow), .wr_data_i (imc_wdata),
    .set_valid_i (imc_setv), .rd_tile_i (imc_rtile), .rd_id_i (imc_id),
    .rd_data_o (imc_rdata), .rd_count_i (imc_count), .matrix_id_o (imc_mid),
    .valid_tiles_o (imc_vt), .stale_o (imc_stale), .stale_reads_o (imc_stale_reads)
  );

  logic          li_start, li_abort, li_done;
  loadimc_desc_t li_desc;
  unit_err_t     li_err;
  act_t          li_act;
  ax_loadimc u_loadimc (
    .clk_i (clk), .rst_ni (rst_ni), .start_i (li_start), .abort_i (li_abort),
    .desc_i (li_desc), .busy_o (), .done_o (li_done), .err_o (li_err), .act_o (li_act),
    .req_valid_o (li_rv), .req_o (li_r), .gnt_i (l1_g[L1P_LOADIMC]),
    .rsp_valid_i (l1_rv[L1P_LOADIMC]), .rdata_i (l1_rd[L1P_LOADIMC]),
    .imc_begin_o (imc_begin), .imc_begin_id_o (imc_begin_id), .imc_wr_valid_o (imc_wr),
    .imc_wr_tile_o (imc_wtile), .imc_wr_row_o (imc_wrow), .imc_wr_data_o (imc_wdata),
    .imc_set_valid_o (imc_setv), .mon_o (mon_loadimc_o)
  );

  logic        dp_start, dp_abort, dp_done, dp_busy;
  walk_t       dp_ifd0, dp_ifd1, dp_odr;
  walk_t [IFD_SEG_WALKS-1:0] dp_segs, dw_segs;   // the descriptors' seg sections
  mvm_desc_t   dp_mvm;
  dpu_desc_t   dp_dpu;
  dp_header_t  dp_hdr;
  logic        dp_prog_wr;
  logic [15:0] dp_prog_idx;
  word_t       dp_prog_data;
  error_code_e dp_prog_code;
  logic        dp_prog_bank, dp_prog_in1, dp_run_bank, dw_run_bank;
  dpu_desc_t   dp_prog_dpu;
  unit_err_t   dp_err;
  act_t [4:0]  dp_act;
  core_wdog_waits_t dp_waits;
  logic [31:0] dp_bytes;
  // the datapath's clock: while it runs, starts, aborts or takes a DPU program word
  logic clk_mvm;
  ax_clk_gate u_cg_mvm (
    .clk_i (clk_i), .rst_ni (rst_ni), .en_i (dp_busy || dp_start || dp_abort || dp_prog_wr), .clk_o (clk_mvm)
  );
  ax_datapath u_mvmexe (
    .clk_i (clk_mvm), .rst_ni (rst_ni), .start_i (dp_start), .abort_i (dp_abort),
    .has_main_i (dp_hdr.has_main), .has_dpu_i (dp_hdr.has_dpu), .has_ifd1_i (dp_hdr.has_ifd1),
    .ifd0_i (dp_ifd0), .ifd1_i (dp_ifd1), .segs_i (dp_segs), .mvm_i (dp_mvm), .dwpu_i ('0), .dpu_i (dp_dpu),
    .odr_i (dp_odr),
    .prog_wr_i (dp_prog_wr), .prog_idx_i (dp_prog_idx), .prog_data_i (dp_prog_data),
    .prog_bank_i (dp_prog_bank), .prog_dpu_i (dp_prog_dpu), .prog_in1_i (dp_prog_in1),
    .run_bank_i (dp_run_bank),
    .prog_code_o (dp_prog_code), .busy_o (dp_busy), .done_o (dp_done),
    .err_o (dp_err), .act_o (dp_act), .waits_o (dp_waits), .bytes_o (dp_bytes),
    .ifd_req_valid_o (ifd_rv), .ifd_req_o (ifd_r), .ifd_gnt_i (l1_g[L1P_MVM_IFD0]),
    .ifd_rsp_valid_i (l1_rv[L1P_MVM_IFD0]), .ifd_rdata_i (l1_rd[L1P_MVM_IFD0]),
    .ifd1_req_valid_o (ifd1_rv), .ifd1_req_o (ifd1_r), .ifd1_gnt_i (l1_g[L1P_MVM_IFD1]),
    .ifd1_rsp_valid_i (l1_rv[L1P_MVM_IFD1]), .ifd1_rdata_i (l1_rd[L1P_MVM_IFD1]),
    .odr_req_valid_o (odr_rv), .odr_req_o (odr_r), .odr_gnt_i (l1_g[L1P_MVM_ODR]),
    .w_req_valid_o (), .w_req_o (), .w_gnt_i (1'b0), .w_rsp_valid_i (1'b0), .w_rdata_i ('0),
    .imc_data_i (imc_rdata), .imc_tile_o (imc_rtile), .imc_id_o (imc_id),
    .imc_count_o (imc_count), .mon_odr_o (mon_mvm_odr_o)
  );

  // ---- DWPU datapath ----
  logic        dw_start, dw_abort, dw_done, dw_busy, dw_prog_wr;
  dp_header_t  dw_hdr;
  walk_t       dw_ifd0, dw_ifd1, dw_odr;
  dwpu_desc_t  dw_desc;
  dpu_desc_t   dw_dpu;
  error_code_e dw_prog_code;
  unit_err_t   dw_err;
  act_t [4:0]  dw_act;
  core_wdog_waits_t dw_waits;
  logic [31:0] dw_bytes;
  logic clk_dw;
  ax_clk_gate u_cg_dw (
    .clk_i (clk_i), .rst_ni (rst_ni), .en_i (dw_busy || dw_start || dw_abort || dw_prog_wr), .clk_o (clk_dw)
  );
  ax_datapath #(.Kind(DP_KIND_DWPU)) u_dwpu (
    .clk_i (clk_dw), .rst_ni (rst_ni), .start_i (dw_start), .abort_i (dw_abort),
    .has_main_i (dw_hdr.has_main), .has_dpu_i (dw_hdr.has_dpu), .has_ifd1_i (dw_hdr.has_ifd1),
    .ifd0_i (dw_ifd0), .ifd1_i (dw_ifd1), .segs_i (dw_segs), .mvm_i ('0), .dwpu_i (dw_desc), .dpu_i (dw_dpu),
    .odr_i (dw_odr),
    .prog_wr_i (dw_prog_wr), .prog_idx_i (dp_prog_idx), .prog_data_i (dp_prog_data),
    .prog_bank_i (dp_prog_bank), .prog_dpu_i (dp_prog_dpu), .prog_in1_i (dp_prog_in1),
    .run_bank_i (dw_run_bank),
    .prog_code_o (dw_prog_code),
    .busy_o (dw_busy), .done_o (dw_done), .err_o (dw_err), .act_o (dw_act), .waits_o (dw_waits),
    .bytes_o (dw_bytes),
    .ifd_req_valid_o (dw_ifd_rv), .ifd_req_o (dw_ifd_r), .ifd_gnt_i (l1_g[L1P_DW_IFD0]),
    .ifd_rsp_valid_i (l1_rv[L1P_DW_IFD0]), .ifd_rdata_i (l1_rd[L1P_DW_IFD0]),
    .ifd1_req_valid_o (dw_ifd1_rv), .ifd1_req_o (dw_ifd1_r), .ifd1_gnt_i (l1_g[L1P_DW_IFD1]),
    .ifd1_rsp_valid_i (l1_rv[L1P_DW_IFD1]), .ifd1_rdata_i (l1_rd[L1P_DW_IFD1]),
    .w_req_valid_o (dw_w_rv), .w_req_o (dw_w_r), .w_gnt_i (l1_g[L1P_DWPU_W]),
    .w_rsp_valid_i (l1_rv[L1P_DWPU_W]), .w_rdata_i (l1_rd[L1P_DWPU_W]),
    .odr_req_valid_o (dw_odr_rv), .odr_req_o (dw_odr_r), .odr_gnt_i (l1_g[L1P_DW_ODR]),
    .imc_data_i (imc_rdata), .imc_tile_o (), .imc_id_o (), .imc_count_o (),  // no IMC in a DWPU datapath
    .mon_odr_o (mon_dw_odr_o)
  );

  // ---- watchdog ----
  word_t             wdog_limit_q, wdog_cnt_q;
  core_wdog_status_t wdog_status_q;
  core_wdog_waits_t  wdog_waits_q;
  logic       wdog_fire, progress;
  assign progress  = dp_act[0].busy || dp_act[1].busy || dp_act[2].busy || dp_act[3].busy || dp_act[4].busy;
  assign wdog_fire = dp_busy && !progress && (wdog_limit_q != '0) && (wdog_cnt_q + 1 >= wdog_limit_q);
  // the DWPU datapath has a counter of its own (same limit); MVMEXE wins WDOG_STATUS in a tie
  word_t dw_wdog_cnt_q;
  logic  dw_wdog_fire, dw_progress;
  assign dw_progress  = dw_act[0].busy || dw_act[1].busy || dw_act[2].busy || dw_act[3].busy || dw_act[4].busy;
  assign dw_wdog_fire = dw_busy && !dw_progress && (wdog_limit_q != '0) && (dw_wdog_cnt_q + 1 >= wdog_limit_q);

  // ---- command processor ----
  logic [NQ-1:0]       q_push, q_reset, q_busy, q_error, q_task_ok;
  logic [NQ-1:0][4:0]  q_pending;
  logic [NQ-1:0][15:0] q_done;
  logic        cp_tok_valid, cp_tok_ready, cp_err_valid;
  token_t      cp_tok;
  error_code_e cp_err_code;
  logic [4:0]  cp_err_channel;
  logic [15:0] cp_err_detail;
  logic [31:0] cp_err_addr;
  always_comb begin
    q_push  = '0;
    q_reset = '0;
    for (int unsigned q = 0; q < NQ; q++) begin
      q_push[q]  = wr && off == CORE_Q_PUSH_OFFSET + 20'(q * CORE_Q_PUSH_STRIDE);
      q_reset[q] = wr && off == CORE_Q_CTRL_OFFSET + 20'(q * CORE_Q_CTRL_STRIDE) && w_q_ctrl.reset;
    end
  end

  ax_cmdproc #(.Row(Row), .Cores(Cores)) u_cmdproc (
    .clk_i (clk), .rst_ni (rst_ni), .clr_i (clr),
    .push_i (q_push), .push_word_i (queue_push_t'(reg_req_i.wdata)), .q_reset_i (q_reset),
    .cmd_rd_o (cmd_rd), .cmd_addr_o (cmd_addr), .cmd_data_i (cmd_data_q),
    .cmd_wr_i (wr && is_cmd), .cmd_wr_addr_i (cmd_off),
    .dp_start_o (dp_start), .dp_abort_o (dp_abort), .dp_ifd0_o (dp_ifd0), .dp_mvm_o (dp_mvm),
    .dp_odr_o (dp_odr), .dp_hdr_o (dp_hdr), .dp_ifd1_o (dp_ifd1), .dp_segs_o (dp_segs), .dp_dpu_o (dp_dpu),
    .dp_prog_wr_o (dp_prog_wr), .dp_prog_idx_o (dp_prog_idx), .dp_prog_data_o (dp_prog_data),
    .dp_prog_code_i (dp_prog_code), .dp_prog_bank_o (dp_prog_bank), .dp_prog_dpu_o (dp_prog_dpu),
    .dp_prog_in1_o (dp_prog_in1), .dp_run_bank_o (dp_run_bank), .dw_run_bank_o (dw_run_bank), .dp_done_i (dp_done), .dp_err_i (dp_err), .dp_bytes_i (dp_bytes),
    .wdog_fire_i (wdog_fire),
    .dw_start_o (dw_start), .dw_abort_o (dw_abort), .dw_hdr_o (dw_hdr), .dw_ifd0_o (dw_ifd0),
    .dw_ifd1_o (dw_ifd1), .dw_segs_o (dw_segs), .dw_dwpu_o (dw_desc), .dw_dpu_o (dw_dpu), .dw_odr_o (dw_odr),
    .dw_prog_wr_o (dw_prog_wr), .dw_prog_code_i (dw_prog_code), .dw_done_i (dw_done), .dw_err_i (dw_err),
    .dw_bytes_i (dw_bytes), .dw_wdog_fire_i (dw_wdog_fire),
    .li_start_o (li_start), .li_abort_o (li_abort), .li_desc_o (li_desc), .li_done_i (li_done),
    .li_err_i (li_err),
    .bar_arrive_o (bar_arrive_o), .bar_id_o (bar_id_o), .bar_mask_o (bar_mask_o),
    .bar_release_i (bar_release_i),
    .tok_valid_o (cp_tok_valid), .tok_ready_i (cp_tok_ready), .tok_o (cp_tok),
    .err_valid_o (cp_err_valid), .err_code_o (cp_err_code), .err_channel_o (cp_err_channel),
    .err_detail_o (cp_err_detail), .err_addr_o (cp_err_addr),
    .q_pending_o (q_pending), .q_busy_o (q_busy), .q_error_o (q_error), .q_done_o (q_done),
    .q_task_ok_o (q_task_ok), .mon_o (mon_cmd_o)
  );

  // ---- CoreDMA ----
  logic        dma_hit, dma_tok_valid, dma_tok_ready, dma_err_valid, dma_err_dir, dma_busy;
  word_t       dma_rdata;
  token_t      dma_tok;
  error_code_e dma_err_code;
  logic [4:0]  dma_err_channel;
  logic [15:0] dma_err_detail;
  logic [31:0] dma_err_addr;
  // CoreDMA's clock: while a channel is busy or a task queued, a token or request waits, a
  // response arrives or the host accesses a register
  logic clk_dma;
  ax_clk_gate u_cg_dma (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .en_i  (dma_busy || dma_tok_valid || (|dma_req_valid_o) || (|dma_rsp_valid_i) || reg_valid_i || clr),
    .clk_o (clk_dma)
  );
  ax_dma #(
    .Bds        (COREDMA_BDS),
    .Dims       (COREDMA_DIMS),
    .SizeBits   (COREDMA_SIZE_BITS),
    .StrideBits (COREDMA_STRIDE_BITS),
    .Padding    (COREDMA_PADDING != 0),
    .Cores      (Cores),
    .Row        (Row)
  ) u_dma (
    .clk_i (clk_dma), .rst_ni (rst_ni),
    .reg_valid_i (reg_valid_i && !rd_pend_q && !dbg_wait_q), .reg_req_i (reg_req_i),
    .reg_hit_o (dma_hit), .reg_rdata_o (dma_rdata),
    .req_valid_o (dma_req_valid_o), .req_o (dma_req_o), .req_ready_i (dma_req_ready_i),
    .rsp_valid_i (dma_rsp_valid_i), .rsp_data_i (dma_rsp_data_i),
    .tok_valid_o (dma_tok_valid), .tok_ready_i (dma_tok_ready), .tok_o (dma_tok), .tok_src_o (),
    .err_valid_o (dma_err_valid), .err_code_o (dma_err_code), .err_dir_o (dma_err_dir),
    .err_channel_o (dma_err_channel), .err_detail_o (dma_err_detail), .err_addr_o (dma_err_addr),
    .busy_o (dma_busy), .mon_task_o (mon_dma_task_o), .mon_write_o (mon_dma_write_o)
  );

  // tokens: the command processor first, then CoreDMA
  assign tok_valid_o   = cp_tok_valid || dma_tok_valid;
  assign tok_o         = cp_tok_valid ? cp_tok : dma_tok;
  assign cp_tok_ready  = tok_ready_i;
  assign dma_tok_ready = tok_ready_i && !cp_tok_valid;

  // ---- errors ----
  word_t err_status, err_info, err_addr;
  ax_err_rec u_err (
    .clk_i         (clk),
    .rst_ni        (rst_ni && !clr),
    .err_valid_i   (cp_err_valid || dma_err_valid || wdog_fire),
    .err_code_i    (cp_err_valid ? cp_err_code : dma_err_valid ? dma_err_code : ERROR_CODE_WATCHDOG),
    .err_dir_i     (cp_err_valid ? 1'b0 : dma_err_dir),
    .err_channel_i (cp_err_valid ? cp_err_channel : dma_err_valid ? dma_err_channel : 5'(CORE_QUEUE_CHANNEL_BASE)),
    .err_detail_i  (cp_err_valid ? cp_err_detail : dma_err_detail),
    .err_addr_i    (cp_err_valid ? cp_err_addr : dma_err_addr),
    .clr_valid_i   (wr && off == CORE_ERROR_STATUS_OFFSET),
    .clr_mask_i    (reg_req_i.wdata),
    .status_o      (err_status),
    .info_o        (err_info),
    .addr_o        (err_addr)
  );
  assign err_o  = (err_status != '0);
  assign busy_o = (|q_busy) || (|q_pending) || dma_busy;

  // ---- perf counters (enum perf_unit) ----
  act_t [PERF_UNITS-1:0]       pact;
  logic [PERF_UNITS-1:0]       ptask;   // a task completed without error this cycle
  logic [2:0]                  cp_tasks;  // CMDPROC: queues may end together
  word_t [PERF_UNITS-1:0][3:0] perf_q;
  always_comb begin
    pact  = '0;
    ptask = '0;
    pact[PERF_UNIT_MVM_IFD0] = dp_act[0];
    pact[PERF_UNIT_MVM]      = dp_act[1];
    pact[PERF_UNIT_MVM_ODR]  = dp_act[2];
    pact[PERF_UNIT_MVM_IFD1] = dp_act[3];
    pact[PERF_UNIT_MVM_DPU]  = dp_act[4];
    pact[PERF_UNIT_LOADIMC]  = li_act;
    pact[PERF_UNIT_DW_IFD0]  = dw_act[0];
    pact[PERF_UNIT_DWPU]     = dw_act[1];
    pact[PERF_UNIT_DW_ODR]   = dw_act[2];
    pact[PERF_UNIT_DW_IFD1]  = dw_act[3];
    pact[PERF_UNIT_DW_DPU]   = dw_act[4];
    pact[PERF_UNIT_CMDPROC].busy = |q_busy;
    ptask[PERF_UNIT_MVM_IFD0] = q_task_ok[0];
    ptask[PERF_UNIT_MVM]      = q_task_ok[0] && dp_hdr.has_main;
    ptask[PERF_UNIT_MVM_ODR]  = q_task_ok[0];
    ptask[PERF_UNIT_MVM_IFD1] = q_task_ok[0] && dp_hdr.has_ifd1;
    ptask[PERF_UNIT_MVM_DPU]  = q_task_ok[0] && dp_hdr.has_dpu;
    ptask[PERF_UNIT_LOADIMC]  = q_task_ok[2];
    ptask[PERF_UNIT_DW_IFD0]  = q_task_ok[1];
    ptask[PERF_UNIT_DWPU]     = q_task_ok[1] && dw_hdr.has_main;
    ptask[PERF_UNIT_DW_IFD1]  = q_task_ok[1] && dw_hdr.has_ifd1;
    ptask[PERF_UNIT_DW_DPU]   = q_task_ok[1] && dw_hdr.has_dpu;
    ptask[PERF_UNIT_DW_ODR]   = q_task_ok[1];
  end
  assign cp_tasks = 3'($countones(q_task_ok));
  always_ff @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) perf_q <= '0;
    else if (clr) perf_q <= '0;
    else begin
      for (int unsigned u = 0; u < PERF_UNITS; u++) begin
        perf_q[u][0] <= perf_q[u][0] + 32'(pact[u].busy);
        perf_q[u][1] <= perf_q[u][1] + 32'(pact[u].stall_in);
        perf_q[u][2] <= perf_q[u][2] + 32'(pact[u].stall_out);
        perf_q[u][3] <= perf_q[u][3] + ((u == 32'(PERF_UNIT_CMDPROC)) ? 32'(cp_tasks) : 32'(ptask[u]));
      end
    end
  end

  // ---- core registers ----
  always_ff @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) begin
      soft_q        <= 1'b0;
      wdog_limit_q  <= WATCHDOG_DEFAULT_CYCLES;
      wdog_cnt_q    <= '0;
      dw_wdog_cnt_q <= '0;
      wdog_status_q <= '0;
      wdog_waits_q  <= '0;
      dbg_sel_q     <= '0;
      dbg_addr_q    <= '0;
    end else begin
      soft_q <= wr && off == CORE_CORE_CTRL_OFFSET && w_core_ctrl.soft_reset;
      if (wr && off == CORE_WDOG_LIMIT_OFFSET) wdog_limit_q <= reg_req_i.wdata;
      if (wr && off == CORE_WDOG_STATUS_OFFSET) wdog_status_q <= wdog_status_q & ~w_wdog_status;  // w1c
      wdog_cnt_q <= (!dp_busy || progress || wdog_fire) ? '0 : wdog_cnt_q + 1;
      dw_wdog_cnt_q <= (!dw_busy || dw_progress || dw_wdog_fire) ? '0 : dw_wdog_cnt_q + 1;
      if (dw_wdog_fire) begin
        wdog_status_q       <= '0;
        wdog_status_q.fired <= 1'b1;
        wdog_status_q.kind  <= 1'(DP_KIND_DWPU);
        wdog_waits_q        <= dw_waits;
      end
      if (wdog_fire) begin
        wdog_status_q       <= '0;
        wdog_status_q.fired <= 1'b1;
        wdog_status_q.kind  <= 1'(DP_KIND_MVMEXE);
        wdog_waits_q        <= dp_waits;
      end
      if (wr && off == CORE_DBG_MEM_SEL_OFFSET) dbg_sel_q <= w_dbg_mem_sel.mem;
      if (wr && off == CORE_DBG_MEM_ADDR_OFFSET) dbg_addr_q <= {reg_req_i.wdata[31:2], 2'b00};
      if (reg_valid_i && is_dbg_data && !rd_pend_q && !dbg_wait_q &&
          (dbg_l1 ? dbg_gnt : (reg_req_i.we || rd_new)))
        dbg_addr_q <= dbg_addr_q + 32'd4;
      if (clr) begin
        wdog_cnt_q    <= '0;
        dw_wdog_cnt_q <= '0;
        wdog_status_q <= '0;
        wdog_waits_q  <= '0;
      end
    end
  end

  // combinational read decode; the status registers in their generated types
  core_core_status_t core_status;
  core_imc_status_t  imc_status;
  core_q_status_t [NQ-1:0] q_status;
  always_comb begin
    core_status              = '0;
    core_status.mvmexe_busy  = q_busy[QUEUE_MVMEXE];
    core_status.dwpu_busy    = q_busy[QUEUE_DWPU];
    core_status.loadimc_busy = q_busy[QUEUE_LOADIMC];
    core_status.barrier_wait = bar_arrive_o;
    core_status.dma_busy     = dma_busy;
    imc_status               = '0;
    imc_status.matrix_id     = imc_mid;
    imc_status.valid_tiles   = imc_vt;
    imc_status.stale         = imc_stale;
    for (int unsigned q = 0; q < NQ; q++) begin
      q_status[q]         = '0;
      q_status[q].pending = q_pending[q];
      q_status[q].busy    = q_busy[q];
      q_status[q].error   = q_error[q];
      q_status[q].done    = q_done[q];
    end
  end
  logic  hit_c;
  word_t rdata_c;
  always_comb begin
    hit_c   = 1'b1;
    rdata_c = '0;
    unique case (off)
      CORE_CORE_CTRL_OFFSET:      rdata_c = '0;
      CORE_CORE_STATUS_OFFSET:    rdata_c = core_status;
      CORE_ERROR_STATUS_OFFSET:   rdata_c = err_status;
      CORE_ERROR_INFO_OFFSET:     rdata_c = err_info;
      CORE_ERROR_ADDR_OFFSET:     rdata_c = err_addr;
      CORE_WDOG_LIMIT_OFFSET:     rdata_c = wdog_limit_q;
      CORE_WDOG_STATUS_OFFSET:    rdata_c = wdog_status_q;
      CORE_WDOG_WAITS_OFFSET:     rdata_c = wdog_waits_q;
      CORE_IMC_STATUS_OFFSET:     rdata_c = imc_status;
      CORE_IMC_STALE_READS_OFFSET: rdata_c = imc_stale_reads;
      CORE_DBG_MEM_SEL_OFFSET:    rdata_c = word_t'(dbg_sel_q);
      CORE_DBG_MEM_ADDR_OFFSET:   rdata_c = dbg_addr_q;
      CORE_DBG_MEM_DATA_OFFSET:   rdata_c = '0;   // L1: answered from the bank; IMC: not built
      default: begin
        hit_c = 1'b0;
        // PERF_BUSY, PERF_STALL_IN, PERF_STALL_OUT, PERF_TASKS: one unit's four counters a stride
        if (off >= CORE_PERF_BUSY_OFFSET && off < CORE_PERF_BUSY_OFFSET + 20'(CORE_PERF_BUSY_COUNT * CORE_PERF_BUSY_STRIDE)) begin
          hit_c   = 1'b1;
          rdata_c = perf_q[4'((off - CORE_PERF_BUSY_OFFSET) / 20'(CORE_PERF_BUSY_STRIDE))]
                          [2'(((off - CORE_PERF_BUSY_OFFSET) % 20'(CORE_PERF_BUSY_STRIDE)) >> 2)];
        end
        for (int unsigned q = 0; q < NQ; q++) begin
          if (off == CORE_Q_CTRL_OFFSET + 20'(q * CORE_Q_CTRL_STRIDE) ||
              off == CORE_Q_PUSH_OFFSET + 20'(q * CORE_Q_PUSH_STRIDE)) hit_c = 1'b1;
          if (off == CORE_Q_STATUS_OFFSET + 20'(q * CORE_Q_STATUS_STRIDE)) begin
            hit_c   = 1'b1;
            rdata_c = q_status[q];
          end
        end
        if (is_cmd) hit_c = 1'b1;
        if (dma_hit) begin
          hit_c   = 1'b1;
          rdata_c = dma_rdata;
        end
      end
    endcase
  end

  logic  hit_q, cmd_rd_q;
  word_t rdata_q;
  always_ff @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_pend_q  <= 1'b0;
      dbg_wait_q <= 1'b0;
      hit_q      <= 1'b0;
      rdata_q    <= '0;
      cmd_rd_q   <= 1'b0;
    end else begin
      rd_pend_q  <= 1'b0;
      cmd_rd_q   <= 1'b0;
      if (rd_new && !(is_dbg_data && dbg_l1)) begin
        rd_pend_q <= 1'b1;
        hit_q     <= hit_c;
        rdata_q   <= rdata_c;
        cmd_rd_q  <= is_cmd;
      end
      if (rd_new && is_dbg_data && dbg_l1 && dbg_gnt) dbg_wait_q <= 1'b1;
      if (dbg_wait_q && dbg_rsp) dbg_wait_q <= 1'b0;
    end
  end

  always_comb begin
    reg_rsp_valid_o = 1'b0;
    reg_rsp_hit_o   = 1'b0;
    reg_rsp_rdata_o = '0;
    if (wr_done) begin
      reg_rsp_valid_o = 1'b1;
      reg_rsp_hit_o   = hit_c;
    end else if (rd_pend_q) begin
      reg_rsp_valid_o = 1'b1;
      reg_rsp_hit_o   = hit_q;
      reg_rsp_rdata_o = cmd_rd_q ? cmd_host_q : rdata_q;
    end else if (dbg_wait_q && dbg_rsp) begin
      reg_rsp_valid_o = 1'b1;
      reg_rsp_hit_o   = 1'b1;
      reg_rsp_rdata_o = dbg_rdata;
    end
  end

  logic unused;
  assign unused = ^{l1_v, l1_g, l1_rv, l1_rd};
  logic unused_hdr;
  assign unused_hdr = ^{dp_hdr, dw_hdr};  // the unit set only
endmodule
// verilator lint_on PINCONNECTEMPTY
