// verilator lint_off PINCONNECTEMPTY
// The DWPU datapath (dp_kind DWPU): IFD0 -> DWPU -> ODR, or IFD0 -> ODR when the descriptor has
// no main unit (has_main = 0: a pure movement datapath, guide §6.4). Its units and L1 ports
// (DW_IFD0, DWPU weights, DW_ODR) are its own, so it runs alongside the MVMEXE datapath. The
// DPU and IFD1 of this kind are not built (the command processor refuses them). All units start
// together; the task is done when the ODR is done (which clears every unit); the first unit
// error aborts every unit.
// act_o feeds the perf counters and the watchdog; waits_o is the WDOG_WAITS picture.
module ax_dwpu_datapath
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        abort_i,
  input  logic        has_main_i,   // the DWPU is in the chain (held like the descriptors)
  input  walk_t       ifd0_i,
  input  dwpu_desc_t  dwpu_i,
  input  walk_t       odr_i,
  output logic        busy_o,
  output logic        done_o,
  output unit_err_t   err_o,
  output act_t [2:0]  act_o,        // IFD0, DWPU, ODR
  output logic [7:0]  waits_o,      // WDOG_WAITS layout
  output logic [31:0] bytes_o,      // bytes the ODR stored in this task
  // L1
  output logic        ifd_req_valid_o,
  output mem_req_t    ifd_req_o,
  input  logic        ifd_gnt_i,
  input  logic        ifd_rsp_valid_i,
  input  row_t        ifd_rdata_i,
  output logic        w_req_valid_o,
  output mem_req_t    w_req_o,
  input  logic        w_gnt_i,
  input  logic        w_rsp_valid_i,
  input  row_t        w_rdata_i,
  output logic        odr_req_valid_o,
  output mem_req_t    odr_req_o,
  input  logic        odr_gnt_i,
  output mon_write_t  mon_odr_o
);
  logic      x_valid, x_ready, dw_ready, y_valid, dw_valid, y_ready;
  strm_t     x, y, dw_y;
  unit_err_t e_ifd, e_dw, e_odr;
  logic      b_ifd, b_dw, b_odr, kill;

  // The end of the task also clears the units (as ax_datapath does): elements IFD0 produced
  // beyond what the DWPU or the ODR took must not reach the next task.
  assign kill = abort_i || err_o.valid || done_o;

  ax_ifd u_ifd0 (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .walk_i (ifd0_i),
    .busy_o (b_ifd), .done_o (), .err_o (e_ifd), .act_o (act_o[0]),
    .req_valid_o (ifd_req_valid_o), .req_o (ifd_req_o), .gnt_i (ifd_gnt_i),
    .rsp_valid_i (ifd_rsp_valid_i), .rdata_i (ifd_rdata_i),
    .out_valid_o (x_valid), .out_ready_i (x_ready), .out_data_o (x)
  );
  ax_dwpu u_dwpu (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i && has_main_i), .abort_i (kill),
    .desc_i (dwpu_i), .busy_o (b_dw), .done_o (), .err_o (e_dw), .act_o (act_o[1]),
    .req_valid_o (w_req_valid_o), .req_o (w_req_o), .gnt_i (w_gnt_i),
    .rsp_valid_i (w_rsp_valid_i), .rdata_i (w_rdata_i),
    .in_valid_i (x_valid && has_main_i), .in_ready_o (dw_ready), .in_data_i (x),
    .out_valid_o (dw_valid), .out_ready_i (y_ready && has_main_i), .out_data_o (dw_y)
  );
  // bypass: the ODR pops IFD0's stream
  assign x_ready = has_main_i ? dw_ready : y_ready;
  assign y_valid = has_main_i ? dw_valid : x_valid;
  assign y       = has_main_i ? dw_y : x;

  ax_odr u_odr (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (kill), .walk_i (odr_i),
    .busy_o (b_odr), .done_o (done_o), .err_o (e_odr), .act_o (act_o[2]),
    .in_valid_i (y_valid), .in_ready_o (y_ready), .in_data_i (y),
    .req_valid_o (odr_req_valid_o), .req_o (odr_req_o), .gnt_i (odr_gnt_i), .mon_o (mon_odr_o)
  );

  always_comb begin
    err_o = '0;
    if (e_odr.valid) err_o = e_odr;
    if (e_dw.valid)  err_o = e_dw;
    if (e_ifd.valid) err_o = e_ifd;
  end
  assign busy_o = b_ifd || b_dw || b_odr;

  logic [31:0] bytes_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)              bytes_q <= '0;
    else if (start_i)         bytes_q <= '0;
    else if (mon_odr_o.valid) bytes_q <= bytes_q + 32'(mon_odr_o.nbytes);
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
