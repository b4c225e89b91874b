// Testbench: L1 + IFD + ODR, the IFD's stream feeding the ODR (a copy through two walks with
// the ODR's cast), plus an IFD-only mode where the C++ side pops the stream itself.
module tb_walk
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        odr_en_i,     // 0: the C++ side pops the IFD stream (tap_ready_i)
  input  walk_t       ifd_walk_i,
  input  walk_t       odr_walk_i,
  input  logic        tap_ready_i,
  output logic        tap_valid_o,
  output strm_t       tap_data_o,
  output logic        ifd_busy_o,
  output logic        ifd_done_o,
  output logic        odr_busy_o,
  output logic        odr_done_o,
  output unit_err_t   ifd_err_o,
  output unit_err_t   odr_err_o,
  output act_t        ifd_act_o,
  output mon_write_t  mon_o,
  // second requester on the same banks (a conflict source): a read port below the IFD
  input  logic        other_valid_i,
  input  logic [19:0] other_row_i,
  output logic        other_gnt_o,
  // L1 debug word port (test setup and checks)
  input  logic        dbg_valid_i,
  input  logic        dbg_we_i,
  input  logic [31:0] dbg_addr_i,
  input  logic [31:0] dbg_wdata_i,
  output logic        dbg_gnt_o,
  output logic        dbg_rsp_valid_o,
  output logic [31:0] dbg_rdata_o
);
  logic     [L1P_UNITS-1:0] v, g, rv;
  mem_req_t [L1P_UNITS-1:0] r;
  row_t     [L1P_UNITS-1:0] rd;
  logic     s_valid, s_ready;
  strm_t    s_data;
  logic     odr_valid, odr_ready;

  always_comb begin
    v = '0;
    r = '0;
    v[L1P_DW_ODR]    = other_valid_i;   // above the IFD in priority: it makes the IFD lose
    r[L1P_DW_ODR].we = 1'b0;
    r[L1P_DW_ODR].row = other_row_i;
    v[L1P_MVM_IFD0]  = ifd_req_valid;
    r[L1P_MVM_IFD0]  = ifd_req;
    v[L1P_MVM_ODR]   = odr_req_valid;
    r[L1P_MVM_ODR]   = odr_req;
  end
  assign other_gnt_o = g[L1P_DW_ODR];

  logic     ifd_req_valid, odr_req_valid;
  mem_req_t ifd_req, odr_req;

  ax_l1 u_l1 (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_valid_i     (v),
    .req_i           (r),
    .gnt_o           (g),
    .rsp_valid_o     (rv),
    .rdata_o         (rd),
    .w_req_valid_i   (1'b0),
    .w_req_i         ('0),
    .w_req_id_i      ('0),
    .w_req_ready_o   (),
    .w_rsp_valid_o   (),
    .w_rsp_data_o    (),
    .dbg_valid_i     (dbg_valid_i),
    .dbg_we_i        (dbg_we_i),
    .dbg_addr_i      (dbg_addr_i),
    .dbg_wdata_i     (dbg_wdata_i),
    .dbg_gnt_o       (dbg_gnt_o),
    .dbg_rsp_valid_o (dbg_rsp_valid_o),
    .dbg_rdata_o     (dbg_rdata_o)
  );

  ax_ifd u_ifd (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (start_i),
    .abort_i     (1'b0),
    .walk_i      (ifd_walk_i),
    .segs_i      ('0),
    .busy_o      (ifd_busy_o),
    .done_o      (ifd_done_o),
    .err_o       (ifd_err_o),
    .act_o       (ifd_act_o),
    .req_valid_o (ifd_req_valid),
    .req_o       (ifd_req),
    .gnt_i       (g[L1P_MVM_IFD0]),
    .rsp_valid_i (rv[L1P_MVM_IFD0]),
    .rdata_i     (rd[L1P_MVM_IFD0]),
    .out_valid_o (s_valid),
    .out_ready_i (s_ready),
    .out_data_o  (s_data)
  );

  assign odr_valid   = s_valid && odr_en_i;
  assign s_ready     = odr_en_i ? odr_ready : tap_ready_i;
  assign tap_valid_o = s_valid;
  assign tap_data_o  = s_data;

  ax_odr u_odr (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (start_i && odr_en_i),
    .abort_i     (1'b0),
    .walk_i      (odr_walk_i),
    .busy_o      (odr_busy_o),
    .done_o      (odr_done_o),
    .err_o       (odr_err_o),
    .act_o       (),
    .in_valid_i  (odr_valid),
    .in_ready_o  (odr_ready),
    .in_data_i   (s_data),
    .req_valid_o (odr_req_valid),
    .req_o       (odr_req),
    .gnt_i       (g[L1P_MVM_ODR]),
    .mon_o       (mon_o)
  );

  logic unused;
  assign unused = ^{rv, rd};
endmodule
