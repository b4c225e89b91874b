// verilator lint_off PINCONNECTEMPTY
// A datapath: IFD0 -> [main unit] -> [DPU (+ IFD1 side input)] -> ODR, the units the header
// names (guide §6.4 bypass: without the main unit, IFD0 feeds the DPU or the ODR; without the
// DPU, the main unit or IFD0 feeds the ODR). Kind picks the main unit: DP_KIND_MVMEXE = the MVM
// (reads the IMC; imc_* ports), DP_KIND_DWPU = the DWPU (loads its weights through the w_* L1
// port). The tile has one of each, with their own units and L1 ports, so the two run side by
// side. The streams live inside the producers (stream_depth each). Present units start
// together; the task is done when the ODR and (if present) the DPU are done, which clears every
// unit; the first unit error aborts every unit. act_o feeds the perf counters and the watchdog;
// waits_o is the WDOG_WAITS picture of what each unit waits on. The DPU program arrives with the
// descriptor words (prog_*) and its validation is prog_code_o. The other kind's ports are unused
// (outputs 0).
module ax_datapath
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter dp_kind_e Kind = DP_KIND_MVMEXE
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        abort_i,
  input  logic        has_main_i,   // the unit set (held like the descriptors)
  input  logic        has_dpu_i,
  input  logic        has_ifd1_i,
  input  walk_t       ifd0_i,
  input  walk_t       ifd1_i,
  input  walk_t [IFD_SEG_WALKS-1:0] segs_i,  // the seg sections: IFD0's ifd0_i.segs, then IFD1's
  // verilator lint_off UNUSEDSIGNAL
  input  mvm_desc_t   mvm_i,        // MVMEXE only
  input  dwpu_desc_t  dwpu_i,       // DWPU only
  // verilator lint_on UNUSEDSIGNAL
  input  dpu_desc_t   dpu_i,
  input  walk_t       odr_i,
  input  logic        prog_wr_i,
  input  logic [15:0] prog_idx_i,
  input  word_t       prog_data_i,
  input  logic        prog_bank_i,  // the DPU program bank the words go to
  input  dpu_desc_t   prog_dpu_i,   // the loading descriptor's DPU section and IFD1 bit
  input  logic        prog_in1_i,
  input  logic        run_bank_i,   // the bank the task being checked / run uses
  output error_code_e prog_code_o,
  output logic        busy_o,
  output logic        done_o,
  output unit_err_t   err_o,
  output act_t [4:0]  act_o,       // IFD0, main unit, ODR, IFD1, DPU
  output core_wdog_waits_t waits_o,  // WDOG_WAITS
  output logic [31:0] bytes_o,     // bytes the ODR stored in this task
  // L1
  output logic        ifd_req_valid_o,
  output mem_req_t    ifd_req_o,
  input  logic        ifd_gnt_i,
  input  logic        ifd_rsp_valid_i,
  input  row_t        ifd_rdata_i,
  output logic        ifd1_req_valid_o,
  output mem_req_t    ifd1_req_o,
  input  logic        ifd1_gnt_i,
  input  logic        ifd1_rsp_valid_i,
  input  row_t        ifd1_rdata_i,
  output logic        odr_req_valid_o,
  output mem_req_t    odr_req_o,
  input  logic        odr_gnt_i,
  // DWPU weights (L1)
  output logic        w_req_valid_o,
  output mem_req_t    w_req_o,
  // verilator lint_off UNUSEDSIGNAL
  input  logic        w_gnt_i,
  input  logic        w_rsp_valid_i,
  input  row_t        w_rdata_i,
  // IMC (MVM)
  input  logic [IMC_TILE_ROWS*ROW_BITS-1:0] imc_data_i,
  // verilator lint_on UNUSEDSIGNAL
  output logic [TILE_AW-1:0] imc_tile_o,
  output logic [7:0]  imc_id_o,
  output logic        imc_count_o,
  output mon_write_t  mon_odr_o
);
  logic      x_valid, x_ready, s_valid, s_ready, y_valid, y_ready, z_valid, z_ready;
  logic      m_in_ready, d_in_valid, d_in_ready, o_in_valid, o_in_ready;
  strm_t     x, s, y, z, d_in, o_in;   // s: IFD1's side stream
  unit_err_t e_ifd, e_ifd1, e_main, e_dpu, e_odr;
  logic      b_ifd, b_ifd1, b_main, b_dpu, b_odr, kill, dpu_wait1, odr_done, dpu_done;

  // The end of the task also clears the units: an element a walk produced beyond what its
  // consumer took must not reach the next task.
  assign kill = abort_i || err_o.valid || done_o;

  // IFD1's later segments follow IFD0's in the seg sections
  walk_t [IFD_SEG_WALKS-1:0] segs1;
  always_comb begin
    for (int unsigned k = 0; k < IFD_SEG_WALKS; k++)
      segs1[k] = (32'(ifd0_i.segs) + k < IFD_SEG_WALKS) ? segs_i[32'(ifd0_i.segs) + k] : '0;
  end

  ax_ifd u_ifd0 (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .walk_i (ifd0_i), .segs_i (segs_i),
    .busy_o (b_ifd), .done_o (), .err_o (e_ifd), .act_o (act_o[0]),
    .req_valid_o (ifd_req_valid_o), .req_o (ifd_req_o), .gnt_i (ifd_gnt_i),
    .rsp_valid_i (ifd_rsp_valid_i), .rdata_i (ifd_rdata_i),
    .out_valid_o (x_valid), .out_ready_i (x_ready), .out_data_o (x)
  );
  ax_ifd u_ifd1 (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i && has_ifd1_i), .abort_i (kill),
    .walk_i (ifd1_i), .segs_i (segs1), .busy_o (b_ifd1), .done_o (), .err_o (e_ifd1), .act_o (act_o[3]),
    .req_valid_o (ifd1_req_valid_o), .req_o (ifd1_req_o), .gnt_i (ifd1_gnt_i),
    .rsp_valid_i (ifd1_rsp_valid_i), .rdata_i (ifd1_rdata_i),
    .out_valid_o (s_valid), .out_ready_i (s_ready), .out_data_o (s)
  );
  if (Kind == DP_KIND_DWPU) begin : g_dwpu
    ax_dwpu u_dwpu (
      .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i && has_main_i), .abort_i (kill),
      .desc_i (dwpu_i), .busy_o (b_main), .done_o (), .err_o (e_main), .act_o (act_o[1]),
      .req_valid_o (w_req_valid_o), .req_o (w_req_o), .gnt_i (w_gnt_i),
      .rsp_valid_i (w_rsp_valid_i), .rdata_i (w_rdata_i),
      .in_valid_i (x_valid && has_main_i), .in_ready_o (m_in_ready), .in_data_i (x),
      .out_valid_o (y_valid), .out_ready_i (y_ready), .out_data_o (y)
    );
    assign imc_tile_o  = '0;
    assign imc_id_o    = '0;
    assign imc_count_o = 1'b0;
  end else begin : g_mvm
    ax_mvm u_mvm (
      .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i && has_main_i), .abort_i (kill),
      .desc_i (mvm_i), .busy_o (b_main), .done_o (), .err_o (e_main), .act_o (act_o[1]),
      .in_valid_i (x_valid && has_main_i), .in_ready_o (m_in_ready), .in_data_i (x),
      .imc_tile_o (imc_tile_o), .imc_id_o (imc_id_o), .imc_data_i (imc_data_i),
      .imc_count_o (imc_count_o), .out_valid_o (y_valid), .out_ready_i (y_ready), .out_data_o (y)
    );
    assign w_req_valid_o = 1'b0;
    assign w_req_o       = '0;
  end

  // the DPU's main input: the main unit's output, or IFD0 when it is bypassed
  assign d_in_valid = has_dpu_i && (has_main_i ? y_valid : x_valid);
  assign d_in       = has_main_i ? y : x;
  ax_dpu u_dpu (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i && has_dpu_i), .abort_i (kill),
    .desc_i (dpu_i), .has_in1_i (has_ifd1_i),
    .prog_wr_i (prog_wr_i), .prog_idx_i (prog_idx_i), .prog_data_i (prog_data_i),
    .prog_bank_i (prog_bank_i), .prog_dpu_i (prog_dpu_i), .prog_in1_i (prog_in1_i),
    .run_bank_i (run_bank_i), .prog_code_o (prog_code_o), .busy_o (b_dpu), .done_o (dpu_done), .err_o (e_dpu),
    .act_o (act_o[4]), .wait_in1_o (dpu_wait1),
    .in0_valid_i (d_in_valid), .in0_ready_o (d_in_ready), .in0_data_i (d_in),
    .in1_valid_i (s_valid && has_ifd1_i), .in1_ready_o (s_ready), .in1_data_i (s),
    .out_valid_o (z_valid), .out_ready_i (z_ready), .out_data_o (z)
  );

  // the ODR's input: the DPU, else the main unit, else IFD0
  assign o_in_valid = has_dpu_i ? z_valid : has_main_i ? y_valid : x_valid;
  assign o_in       = has_dpu_i ? z : has_main_i ? y : x;
  assign z_ready    = has_dpu_i && o_in_ready;
  assign y_ready    = has_main_i && (has_dpu_i ? d_in_ready : o_in_ready);
  assign x_ready    = has_main_i ? m_in_ready : has_dpu_i ? d_in_ready : o_in_ready;
  ax_odr #(.Trsp(Kind == DP_KIND_DWPU)) u_odr (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .walk_i (odr_i),
    .busy_o (b_odr), .done_o (odr_done), .err_o (e_odr), .act_o (act_o[2]),
    .in_valid_i (o_in_valid), .in_ready_o (o_in_ready), .in_data_i (o_in),
    .req_valid_o (odr_req_valid_o), .req_o (odr_req_o), .gnt_i (odr_gnt_i), .mon_o (mon_odr_o)
  );

  always_comb begin
    err_o = '0;
    if (e_odr.valid)  err_o = e_odr;
    if (e_dpu.valid)  err_o = e_dpu;
    if (e_main.valid) err_o = e_main;
    if (e_ifd1.valid) err_o = e_ifd1;
    if (e_ifd.valid)  err_o = e_ifd;
  end
  assign busy_o = b_ifd || b_ifd1 || b_main || b_dpu || b_odr;

  // done once both the ODR and the DPU (when present) finished, reported once per run
  logic run_q, odr_fin_q, dpu_fin_q, fin_odr, fin_dpu;
  assign fin_odr = odr_done || odr_fin_q;
  assign fin_dpu = !has_dpu_i || dpu_done || dpu_fin_q;
  assign done_o  = run_q && fin_odr && fin_dpu;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q     <= 1'b0;
      odr_fin_q <= 1'b0;
      dpu_fin_q <= 1'b0;
    end else if (start_i) begin
      run_q     <= 1'b1;
      odr_fin_q <= 1'b0;
      dpu_fin_q <= 1'b0;
    end else if (kill || done_o) begin
      run_q     <= 1'b0;
    end else begin
      odr_fin_q <= fin_odr;
      dpu_fin_q <= dpu_fin_q || dpu_done;
    end
  end

  logic [31:0] bytes_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)              bytes_q <= '0;
    else if (start_i)         bytes_q <= '0;
    else if (mon_odr_o.valid) bytes_q <= bytes_q + 32'(mon_odr_o.nbytes);
  end
  assign bytes_o = bytes_q;

  always_comb begin
    waits_o          = '0;
    waits_o.ifd0_out = act_o[0].stall_out;
    waits_o.ifd1_out = act_o[3].stall_out;
    waits_o.main_in  = act_o[1].stall_in;
    waits_o.main_out = act_o[1].stall_out;
    waits_o.dpu_in0  = act_o[4].stall_in && !dpu_wait1;
    waits_o.dpu_in1  = dpu_wait1;
    waits_o.dpu_out  = act_o[4].stall_out;
    waits_o.odr_in   = act_o[2].stall_in;
  end
endmodule
// verilator lint_on PINCONNECTEMPTY
