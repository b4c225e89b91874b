// LoadIMC engine (spec loadimc_desc, common/ref run_loadimc): begins the residency, then for
// t1 < d1_size, t0 < d0_size (t0 inner) reads the tile's 64 weight rows from L1 (row base_row +
// t0*d0_astride + t1*d1_astride + r*row_stride), one per cycle, and writes each into the IMC the
// cycle after its read was granted. A tile outside the IMC (IMC_RANGE) or rows outside L1
// (L1_RANGE) stop the load before that tile is written. The descriptor is validated (magic,
// sizes) by the command processor. mon_o: one beat per IMC row, a record per tile.
module ax_loadimc
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Rows = L1_ROWS
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          start_i,
  input  logic          abort_i,
  // verilator lint_off UNUSEDSIGNAL
  input  loadimc_desc_t desc_i,     // magic and reserved words are the command processor's
  // verilator lint_on UNUSEDSIGNAL
  output logic          busy_o,
  output logic          done_o,
  output unit_err_t     err_o,
  output act_t          act_o,
  // L1 row port (reads)
  output logic          req_valid_o,
  output mem_req_t      req_o,
  input  logic          gnt_i,
  input  logic          rsp_valid_i,
  input  row_t          rdata_i,
  // IMC
  output logic          imc_begin_o,
  output logic [7:0]    imc_begin_id_o,
  output logic          imc_wr_valid_o,
  output logic [TILE_AW-1:0] imc_wr_tile_o,
  output logic [5:0]    imc_wr_row_o,
  output row_t          imc_wr_data_o,
  output logic          imc_set_valid_o,
  output mon_write_t    mon_o
);
  localparam srow_t LAST_R = srow_t'(IMC_TILE_ROWS) - srow_t'(1);

  logic       active_q, active_d, issued_q, issued_d, fault_q, fault_d;
  logic [7:0] t0_q, t0_d, t1_q, t1_d;
  logic [5:0] r_q, r_d;
  srow_t      first, row, last_row;
  logic signed [31:0] tile;
  logic       tile_ok, rows_ok, check, fault, gnt;

  always_comb begin
    tile     = 32'(desc_i.tile_base) + 32'(desc_i.d0_tstride) * $signed({24'b0, t0_q}) +
               32'(desc_i.d1_tstride) * $signed({24'b0, t1_q});
    first    = srow_t'(desc_i.base_row) + srow_t'(desc_i.d0_astride) * $signed({40'b0, t0_q}) +
               srow_t'(desc_i.d1_astride) * $signed({40'b0, t1_q});
    last_row = first + LAST_R * $signed({32'b0, desc_i.row_stride});
    row      = first + srow_t'(r_q) * $signed({32'b0, desc_i.row_stride});
    tile_ok  = (tile >= 0) && (tile < 32'(IMC_TILES));
    rows_ok  = (first >= 0) && (last_row < srow_t'(Rows));
  end

  logic working;
  assign working     = active_q && !issued_q && !fault_q;
  assign check       = working && (r_q == '0);
  assign fault       = check && !(tile_ok && rows_ok);
  assign req_valid_o = working && !fault;
  assign gnt         = req_valid_o && gnt_i;

  always_comb begin
    req_o     = '0;
    req_o.row = MEM_ROW_AW'(row);
    req_o.be  = '1;
  end

  always_comb begin
    active_d = active_q;
    issued_d = issued_q;
    fault_d  = fault_q || fault;
    t0_d     = t0_q;
    t1_d     = t1_q;
    r_d      = r_q;
    if (gnt) begin
      r_d = r_q + 6'd1;
      if (r_q == 6'd63) begin
        if (t0_q + 8'd1 < desc_i.d0_size) t0_d = t0_q + 8'd1;
        else begin
          t0_d = '0;
          if (t1_q + 8'd1 < desc_i.d1_size) t1_d = t1_q + 8'd1;
          else issued_d = 1'b1;
        end
      end
    end
    if (active_q && (issued_q || fault_q) && !wr_q) active_d = 1'b0;
    if (start_i) begin
      active_d = 1'b1;
      issued_d = 1'b0;
      fault_d  = 1'b0;
      t0_d     = '0;
      t1_d     = '0;
      r_d      = '0;
    end
    if (abort_i) active_d = 1'b0;
  end

  // the granted read's destination, written when the data returns
  logic               wr_q;
  logic [TILE_AW-1:0] wtile_q;
  logic [5:0]         wrow_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      issued_q <= 1'b0;
      fault_q  <= 1'b0;
      t0_q     <= '0;
      t1_q     <= '0;
      r_q      <= '0;
      wr_q     <= 1'b0;
      wtile_q  <= '0;
      wrow_q   <= '0;
    end else begin
      active_q <= active_d;
      issued_q <= issued_d;
      fault_q  <= fault_d;
      t0_q     <= t0_d;
      t1_q     <= t1_d;
      r_q      <= r_d;
      wr_q     <= gnt && !abort_i;
      wtile_q  <= TILE_AW'(tile);
      wrow_q   <= r_q;
    end
  end

  assign imc_begin_o     = start_i;
  assign imc_begin_id_o  = desc_i.matrix_id;
  assign imc_wr_valid_o  = wr_q && rsp_valid_i;
  assign imc_wr_tile_o   = wtile_q;
  assign imc_wr_row_o    = wrow_q;
  assign imc_wr_data_o   = rdata_i;
  assign imc_set_valid_o = imc_wr_valid_o && (wrow_q == 6'd63);

  assign busy_o = active_q;
  assign done_o = active_q && issued_q && !fault_q && !wr_q;
  always_comb begin
    err_o       = '0;
    err_o.valid = fault;
    err_o.code  = tile_ok ? ERROR_CODE_L1_RANGE : ERROR_CODE_IMC_RANGE;
    err_o.addr  = tile_ok ? 32'(first) : 32'(tile);
    act_o       = '0;
    act_o.busy  = active_q && !(issued_q && !wr_q);
    mon_o        = '0;
    mon_o.valid  = imc_wr_valid_o;
    mon_o.first  = (wrow_q == '0);
    mon_o.last   = (wrow_q == 6'd63);
    mon_o.addr   = DDR_ADDR_BITS'({wtile_q, wrow_q, 6'b0});
    mon_o.nbytes = 8'(ROW_BYTES);
    mon_o.data   = rdata_i;
  end
  logic unused_row;
  assign unused_row = ^row[ROW_W-1:MEM_ROW_AW];
endmodule
