// verilator lint_off PINCONNECTEMPTY
// The MVMEXE datapath: IFD0 -> MVM -> ODR with the streams inside the producers (stream_depth
// each). The DPU and IFD1 are not built yet (the command processor refuses descriptors that
// name them with DESC_UNITS). All units start together; the task is done when the ODR is done;
// the first unit error aborts every unit. act_o feeds the perf counters and the watchdog;
// waits_o is the WDOG_WAITS picture of what each unit waits on.
module ax_datapath
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        abort_i,
  input  walk_t       ifd0_i,
  input  mvm_desc_t   mvm_i,
  input  walk_t       odr_i,
  output logic        busy_o,
  output logic        done_o,
  output unit_err_t   err_o,
  output act_t [2:0]  act_o,       // IFD0, MVM, ODR
  output logic [7:0]  waits_o,     // WDOG_WAITS layout
  output logic [31:0] bytes_o,     // bytes the ODR stored in this task
  // L1
  output logic        ifd_req_valid_o,
  output mem_req_t    ifd_req_o,
  input  logic        ifd_gnt_i,
  input  logic        ifd_rsp_valid_i,
  input  row_t        ifd_rdata_i,
  output logic        odr_req_valid_o,
  output mem_req_t    odr_req_o,
  input  logic        odr_gnt_i,
  // IMC
  output logic [TILE_AW-1:0] imc_tile_o,
  output logic [7:0]  imc_id_o,
  input  logic [IMC_TILE_ROWS*ROW_BITS-1:0] imc_data_i,
  output logic        imc_count_o,
  output mon_write_t  mon_odr_o
);
  logic      x_valid, x_ready, y_valid, y_ready;
  strm_t     x, y;
  unit_err_t e_ifd, e_mvm, e_odr;
  logic      b_ifd, b_mvm, b_odr, kill;

  assign kill = abort_i || err_o.valid;

  ax_ifd u_ifd0 (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .walk_i (ifd0_i),
    .busy_o (b_ifd), .done_o (), .err_o (e_ifd), .act_o (act_o[0]),
    .req_valid_o (ifd_req_valid_o), .req_o (ifd_req_o), .gnt_i (ifd_gnt_i),
    .rsp_valid_i (ifd_rsp_valid_i), .rdata_i (ifd_rdata_i),
    .out_valid_o (x_valid), .out_ready_i (x_ready), .out_data_o (x)
  );
  ax_mvm u_mvm (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .desc_i (mvm_i),
    .busy_o (b_mvm), .done_o (), .err_o (e_mvm), .act_o (act_o[1]),
    .in_valid_i (x_valid), .in_ready_o (x_ready), .in_data_i (x),
    .imc_tile_o (imc_tile_o), .imc_id_o (imc_id_o), .imc_data_i (imc_data_i),
    .imc_count_o (imc_count_o), .out_valid_o (y_valid), .out_ready_i (y_ready), .out_data_o (y)
  );
  ax_odr u_odr (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .walk_i (odr_i),
    .busy_o (b_odr), .done_o (done_o), .err_o (e_odr), .act_o (act_o[2]),
    .in_valid_i (y_valid), .in_ready_o (y_ready), .in_data_i (y),
    .req_valid_o (odr_req_valid_o), .req_o (odr_req_o), .gnt_i (odr_gnt_i), .mon_o (mon_odr_o)
  );

  always_comb begin
    err_o = '0;
    if (e_odr.valid) err_o = e_odr;
    if (e_mvm.valid) err_o = e_mvm;
    if (e_ifd.valid) err_o = e_ifd;
  end
  assign busy_o = b_ifd || b_mvm || b_odr;

  logic [31:0] bytes_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)                              bytes_q <= '0;
    else if (start_i)                         bytes_q <= '0;
    else if (mon_odr_o.valid)                 bytes_q <= bytes_q + 32'(mon_odr_o.nbytes);
  end
  assign bytes_o = bytes_q;

  always_comb begin
    waits_o    = '0;
    waits_o[0] = act_o[0].stall_out;  // ifd0_out
    waits_o[2] = act_o[1].stall_in;   // main_in
    waits_o[3] = act_o[1].stall_out;  // main_out
    waits_o[7] = act_o[2].stall_in;   // odr_in
  end
endmodule
// verilator lint_on PINCONNECTEMPTY
