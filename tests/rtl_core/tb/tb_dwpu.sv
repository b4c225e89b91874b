// Testbench: L1 and the DWPU datapath (IFD0 -> DWPU -> ODR, or IFD0 -> ODR), started by the
// C++ side. A "noise" read port of the highest L1 priority (the MVM ODR's) lets the test steal
// banks from the DWPU's ports; the error pulse is kept until the next start.
module tb_dwpu
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          start_i,
  input  logic          has_main_i,
  input  walk_t         ifd_walk_i,
  input  dwpu_desc_t    dwpu_desc_i,
  input  walk_t         odr_walk_i,
  output logic          done_o,
  output logic          busy_o,
  output unit_err_t     err_o,         // the first error since the start
  output logic [31:0]   bytes_o,
  output logic [31:0]   dw_busy_o,     // DWPU act counters since the start
  output logic [31:0]   dw_stall_in_o,
  output logic [31:0]   dw_stall_out_o,
  output logic [31:0]   odr_writes_o,  // ODR row writes since the start
  input  logic          noise_valid_i,
  input  logic [19:0]   noise_row_i,
  // L1 debug word port
  input  logic          dbg_valid_i,
  input  logic          dbg_we_i,
  input  logic [31:0]   dbg_addr_i,
  input  logic [31:0]   dbg_wdata_i,
  output logic          dbg_gnt_o,
  output logic          dbg_rsp_valid_o,
  output logic [31:0]   dbg_rdata_o
);
  logic     [L1P_UNITS-1:0] v, g, rv;
  mem_req_t [L1P_UNITS-1:0] r;
  row_t     [L1P_UNITS-1:0] rd;

  logic     ifd_rv, odr_rv, w_rv;
  mem_req_t ifd_r, odr_r, w_r, noise_r;
  always_comb begin
    noise_r     = '0;
    noise_r.row = noise_row_i;
    v = '0;
    r = '0;
    v[L1P_MVM_ODR] = noise_valid_i;
    r[L1P_MVM_ODR] = noise_r;
    v[L1P_DW_ODR]  = odr_rv;
    r[L1P_DW_ODR]  = odr_r;
    v[L1P_DW_IFD0] = ifd_rv;
    r[L1P_DW_IFD0] = ifd_r;
    v[L1P_DWPU_W]  = w_rv;
    r[L1P_DWPU_W]  = w_r;
  end

  ax_l1 u_l1 (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .req_valid_i (v), .req_i (r), .gnt_o (g), .rsp_valid_o (rv), .rdata_o (rd),
    .w_req_valid_i (1'b0), .w_req_i ('0), .w_req_id_i ('0), .w_req_ready_o (),
    .w_rsp_valid_o (), .w_rsp_data_o (),
    .dbg_valid_i (dbg_valid_i), .dbg_we_i (dbg_we_i), .dbg_addr_i (dbg_addr_i),
    .dbg_wdata_i (dbg_wdata_i), .dbg_gnt_o (dbg_gnt_o), .dbg_rsp_valid_o (dbg_rsp_valid_o),
    .dbg_rdata_o (dbg_rdata_o)
  );

  unit_err_t  err;
  act_t [4:0] act;
  mon_write_t mon;
  logic [IMC_TILE_ROWS*ROW_BITS-1:0] no_imc;  // a DWPU datapath reads no IMC
  // verilator lint_off WIDTHCONCAT
  assign no_imc = '0;
  // verilator lint_on WIDTHCONCAT
  ax_datapath #(.Kind(DP_KIND_DWPU)) u_dp (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (1'b0),
    .has_main_i (has_main_i), .has_dpu_i (1'b0), .has_ifd1_i (1'b0), .ifd0_i (ifd_walk_i),
    .ifd1_i ('0), .segs_i ('0), .mvm_i ('0), .dwpu_i (dwpu_desc_i), .dpu_i ('0), .odr_i (odr_walk_i),
    .prog_wr_i (1'b0), .prog_idx_i ('0), .prog_data_i ('0), .prog_bank_i (1'b0), .prog_dpu_i ('0),
    .prog_in1_i (1'b0), .run_bank_i (1'b0), .prog_code_o (),
    .busy_o (busy_o), .done_o (done_o), .err_o (err), .act_o (act), .waits_o (),
    .bytes_o (bytes_o),
    .ifd_req_valid_o (ifd_rv), .ifd_req_o (ifd_r), .ifd_gnt_i (g[L1P_DW_IFD0]),
    .ifd_rsp_valid_i (rv[L1P_DW_IFD0]), .ifd_rdata_i (rd[L1P_DW_IFD0]),
    .ifd1_req_valid_o (), .ifd1_req_o (), .ifd1_gnt_i (1'b0), .ifd1_rsp_valid_i (1'b0),
    .ifd1_rdata_i ('0),
    .w_req_valid_o (w_rv), .w_req_o (w_r), .w_gnt_i (g[L1P_DWPU_W]),
    .w_rsp_valid_i (rv[L1P_DWPU_W]), .w_rdata_i (rd[L1P_DWPU_W]),
    .odr_req_valid_o (odr_rv), .odr_req_o (odr_r), .odr_gnt_i (g[L1P_DW_ODR]),
    .imc_data_i (no_imc), .imc_tile_o (), .imc_id_o (), .imc_count_o (), .mon_odr_o (mon)
  );

  logic [31:0] busy_q, sin_q, sout_q, wr_q;
  unit_err_t   err_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= '0;
      sin_q  <= '0;
      sout_q <= '0;
      wr_q   <= '0;
      err_q  <= '0;
    end else if (start_i) begin
      busy_q <= '0;
      sin_q  <= '0;
      sout_q <= '0;
      wr_q   <= '0;
      err_q  <= '0;
    end else begin
      busy_q <= busy_q + 32'(act[1].busy);
      sin_q  <= sin_q + 32'(act[1].stall_in);
      sout_q <= sout_q + 32'(act[1].stall_out);
      wr_q   <= wr_q + 32'(mon.valid);
      if (err.valid && !err_q.valid) err_q <= err;
    end
  end
  assign err_o          = err_q;
  assign dw_busy_o      = busy_q;
  assign dw_stall_in_o  = sin_q;
  assign dw_stall_out_o = sout_q;
  assign odr_writes_o   = wr_q;

  logic unused;
  assign unused = ^{rv, rd, g, act[0], act[2]};
endmodule
