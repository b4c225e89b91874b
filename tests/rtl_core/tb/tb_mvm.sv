// Testbench: the MVMEXE pipeline without command processor or DPU: L1, LoadIMC -> IMC, and
// IFD0 -> MVM -> ODR, started by the C++ side (LoadIMC first, then the three units together).
// MvmRows: mvm_rows_per_cycle of the MVM and the IMC read port (verilated again with -G).
module tb_mvm
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned MvmRows = MVM_ROWS_PER_CYCLE
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          load_start_i,
  input  loadimc_desc_t load_desc_i,
  output logic          load_done_o,
  output unit_err_t     load_err_o,
  input  logic          run_start_i,
  input  walk_t         ifd_walk_i,
  input  mvm_desc_t     mvm_desc_i,
  input  walk_t         odr_walk_i,
  output logic          mvm_done_o,
  output logic          odr_done_o,
  output unit_err_t     mvm_err_o,
  output logic [31:0]   stale_reads_o,
  output logic [7:0]    valid_tiles_o,
  output logic [7:0]    matrix_id_o,
  output logic [31:0]   mvm_busy_cycles_o,
  output logic          x_pop_o,        // the MVM pops an x element (a tile-op starts)
  output logic          y_pop_o,        // the ODR pops an MVM output
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

  logic     ifd_rv, odr_rv, li_rv;
  mem_req_t ifd_r, odr_r, li_r;
  always_comb begin
    v = '0;
    r = '0;
    v[L1P_MVM_ODR]  = odr_rv;
    r[L1P_MVM_ODR]  = odr_r;
    v[L1P_MVM_IFD0] = ifd_rv;
    r[L1P_MVM_IFD0] = ifd_r;
    v[L1P_LOADIMC]  = li_rv;
    r[L1P_LOADIMC]  = li_r;
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

  logic imc_begin, imc_wr, imc_setv, imc_count;
  logic [7:0] imc_begin_id, imc_id;
  logic [TILE_AW-1:0] imc_wtile, imc_rtile;
  logic [5:0] imc_wrow;
  row_t imc_wdata;
  logic [IMC_TILE_ROWS*ROW_BITS-1:0] imc_rdata;

  ax_loadimc u_li (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (load_start_i), .abort_i (1'b0),
    .desc_i (load_desc_i), .busy_o (), .done_o (load_done_o), .err_o (load_err_o), .act_o (),
    .req_valid_o (li_rv), .req_o (li_r), .gnt_i (g[L1P_LOADIMC]),
    .rsp_valid_i (rv[L1P_LOADIMC]), .rdata_i (rd[L1P_LOADIMC]),
    .imc_begin_o (imc_begin), .imc_begin_id_o (imc_begin_id), .imc_wr_valid_o (imc_wr),
    .imc_wr_tile_o (imc_wtile), .imc_wr_row_o (imc_wrow), .imc_wr_data_o (imc_wdata),
    .imc_set_valid_o (imc_setv), .mon_o ()
  );

  ax_imc #(.Rows(MvmRows)) u_imc (
    .clk_i (clk_i), .rst_ni (rst_ni), .clr_i (1'b0),
    .begin_i (imc_begin), .begin_id_i (imc_begin_id), .wr_valid_i (imc_wr),
    .wr_tile_i (imc_wtile), .wr_row_i (imc_wrow), .wr_data_i (imc_wdata),
    .set_valid_i (imc_setv), .rd_tile_i (imc_rtile), .rd_id_i (imc_id),
    .rd_data_o (imc_rdata), .rd_count_i (imc_count), .matrix_id_o (matrix_id_o),
    .valid_tiles_o (valid_tiles_o), .stale_o (), .stale_reads_o (stale_reads_o)
  );

  logic  x_valid, x_ready, y_valid, y_ready;
  strm_t x, y;
  act_t  mvm_act;
  ax_ifd u_ifd (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (run_start_i), .abort_i (1'b0),
    .walk_i (ifd_walk_i), .segs_i ('0), .busy_o (), .done_o (), .err_o (), .act_o (),
    .req_valid_o (ifd_rv), .req_o (ifd_r), .gnt_i (g[L1P_MVM_IFD0]),
    .rsp_valid_i (rv[L1P_MVM_IFD0]), .rdata_i (rd[L1P_MVM_IFD0]),
    .out_valid_o (x_valid), .out_ready_i (x_ready), .out_data_o (x)
  );
  ax_mvm #(.Rows(MvmRows)) u_mvm (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (run_start_i), .abort_i (1'b0),
    .desc_i (mvm_desc_i), .busy_o (), .done_o (mvm_done_o), .err_o (mvm_err_o),
    .act_o (mvm_act), .in_valid_i (x_valid), .in_ready_o (x_ready), .in_data_i (x),
    .imc_tile_o (imc_rtile), .imc_id_o (imc_id), .imc_data_i (imc_rdata),
    .imc_count_o (imc_count), .out_valid_o (y_valid), .out_ready_i (y_ready), .out_data_o (y)
  );
  ax_odr u_odr (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (run_start_i), .abort_i (1'b0),
    .walk_i (odr_walk_i), .busy_o (), .done_o (odr_done_o), .err_o (), .act_o (),
    .in_valid_i (y_valid), .in_ready_o (y_ready), .in_data_i (y),
    .req_valid_o (odr_rv), .req_o (odr_r), .gnt_i (g[L1P_MVM_ODR]), .mon_o ()
  );

  logic [31:0] busy_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)          busy_q <= '0;
    else if (run_start_i) busy_q <= '0;
    else if (mvm_act.busy) busy_q <= busy_q + 32'd1;
  end
  assign mvm_busy_cycles_o = busy_q;
  assign x_pop_o = x_valid && x_ready;
  assign y_pop_o = y_valid && y_ready;

  logic unused;
  assign unused = ^{rv, rd, g};
endmodule
