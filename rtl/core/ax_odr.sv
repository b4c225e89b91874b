// ODR: pops its stream once per walk step, casts cast_from -> dtype (ax_pword_cast) and stores
// the element's R(dtype) rows, one row write per cycle starting odr_latency cycles after the pop,
// or drops it (a guard false: one cycle, no write). The next pop can happen in the cycle of the
// last row write, so a run of int8 stores writes one row per cycle. A row outside L1 stops the
// walk with L1_RANGE. mon_write_o shows every row write (first/last beat of each element).
// Transpose (parameter Trsp, the DWPU datapath's ODR; walk field transpose): the ODR alternates
// a fill phase, 64 pops into ax_odr_trsp (one per cycle as the stream delivers, whatever the
// write buffer does), and a drain phase from the cycle after the 64th pop: 64 walk steps, each
// taking the transposed element into the write buffer as a pop does without transpose (one
// per R(dtype) cycles, a drop one cycle). The next fill starts the cycle after the 64th take.
module ax_odr
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Rows = L1_ROWS,
  parameter bit          Trsp = 1'b0       // build the lane transpose (walk transpose = 1)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       start_i,
  input  logic       abort_i,
  // verilator lint_off UNUSEDSIGNAL
  input  walk_t      walk_i,    // pad_value is the IFD's
  // verilator lint_on UNUSEDSIGNAL
  output logic       busy_o,
  output logic       done_o,
  output unit_err_t  err_o,
  output act_t       act_o,
  // stream
  input  logic       in_valid_i,
  output logic       in_ready_o,
  input  strm_t      in_data_i,
  // L1 row port (writes only)
  output logic       req_valid_o,
  output mem_req_t   req_o,
  input  logic       gnt_i,
  output mon_write_t mon_o
);
`ifndef SYNTHESIS
  initial assert (ODR_LATENCY == 1) else $fatal(1, "ax_odr: only odr_latency = 1 is built");
`endif

  logic       active_q, active_d, popped_all_q, popped_all_d, fault_q, fault_d;
  logic       wr_q, wr_d;          // the write buffer holds an element
  logic [1:0] beat_q, beat_d;
  srow_t      wrow_q, row;
  elem_t      wbuf_q, cast;
  logic       pass, last, pop, free_next, in_range, fault;
  logic [2:0] nrows;
  localparam int unsigned CntW = $clog2(PWORD_LANES);
  logic            trsp, fill_q, fill_d, fill_pop, take, step;
  logic [CntW-1:0] cnt_q, cnt_d;
  elem_t           tdata;

  ax_walk_gen u_walk (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .walk_i  (walk_i),
    .start_i (start_i),
    .next_i  (step),
    .row_o   (row),
    .pass_o  (pass),
    .last_o  (last)
  );

  ax_pword_cast u_cast (
    .from_i (walk_i.cast_from),
    .to_i   (walk_i.dtype),
    .in_i   (in_data_i.data),
    .out_o  (cast)
  );

  assign nrows     = rows_of(walk_i.dtype);
  assign req_valid_o = wr_q;
  assign free_next = !wr_q || (gnt_i && 32'(beat_q) + 1 == 32'(nrows));
  assign in_range  = (row >= 0) && (row + srow_t'(nrows) <= srow_t'(Rows));
  logic want, go;
  assign trsp       = Trsp && walk_i.transpose;
  assign go         = active_q && !popped_all_q && !fault_q;
  assign want       = go && free_next;
  // without transpose a pop is a walk step; with it, pops fill the buffer and takes are the steps
  assign fault      = trsp ? (want && !fill_q && pass && !in_range) : (want && in_valid_i && pass && !in_range);
  assign in_ready_o = trsp ? (go && fill_q) : (want && !(pass && !in_range));
  assign pop        = in_valid_i && in_ready_o;
  assign fill_pop   = trsp && pop;
  assign take       = trsp && want && !fill_q && !(pass && !in_range);
  assign step       = trsp ? take : pop;

  if (Trsp) begin : g_trsp
    ax_odr_trsp u_trsp (
      .clk_i (clk_i), .we_i (fill_pop), .widx_i (cnt_q), .wdata_i (cast), .dtype_i (walk_i.dtype),
      .ridx_i (cnt_q), .rdata_o (tdata)
    );
  end else begin : g_no_trsp
    assign tdata = '0;
  end

  always_comb begin
    req_o       = '0;
    req_o.we    = 1'b1;
    req_o.row   = MEM_ROW_AW'(wrow_q + srow_t'(beat_q));
    req_o.be    = '1;
    req_o.wdata = wbuf_q[ROW_BITS * beat_q +: ROW_BITS];
  end

  always_comb begin
    active_d     = active_q;
    popped_all_d = popped_all_q;
    fault_d      = fault_q || fault;
    wr_d         = wr_q;
    beat_d       = beat_q;
    if (wr_q && gnt_i) begin
      if (32'(beat_q) + 1 == 32'(nrows)) begin
        wr_d   = 1'b0;
        beat_d = '0;
      end else beat_d = beat_q + 2'd1;
    end
    if (step) begin
      if (pass) wr_d = 1'b1;
      if (last) popped_all_d = 1'b1;
    end
    fill_d = fill_q;
    cnt_d  = cnt_q;
    if (fill_pop || take) begin
      cnt_d = cnt_q + CntW'(1);
      if (cnt_q == CntW'(PWORD_LANES - 1)) fill_d = !fill_q;
    end
    if (active_q && (popped_all_q || fault_q) && !wr_q) active_d = 1'b0;
    if (start_i) begin
      active_d     = 1'b1;
      popped_all_d = 1'b0;
      fault_d      = 1'b0;
      fill_d       = 1'b1;
      cnt_d        = '0;
    end
    if (abort_i) begin
      active_d = 1'b0;
      wr_d     = 1'b0;
      beat_d   = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q     <= 1'b0;
      popped_all_q <= 1'b0;
      fault_q      <= 1'b0;
      wr_q         <= 1'b0;
      beat_q       <= '0;
      wrow_q       <= '0;
      fill_q       <= 1'b1;
      cnt_q        <= '0;
    end else begin
      active_q     <= active_d;
      popped_all_q <= popped_all_d;
      fault_q      <= fault_d;
      wr_q         <= wr_d;
      beat_q       <= beat_d;
      fill_q       <= fill_d;
      cnt_q        <= cnt_d;
      if (step) wrow_q <= row;
    end
  end
  always_ff @(posedge clk_i) begin
    if (step) wbuf_q <= trsp ? tdata : cast;
  end

  assign busy_o = active_q;
  assign done_o = active_q && popped_all_q && !fault_q && !wr_q;
  always_comb begin
    err_o       = '0;
    err_o.valid = fault;
    err_o.code  = ERROR_CODE_L1_RANGE;
    err_o.addr  = 32'(row);
  end
  logic starved;  // waiting on an empty input with no row to write
  assign starved = (trsp ? (go && fill_q) : want) && !in_valid_i && !wr_q;
  always_comb begin
    act_o          = '0;
    act_o.busy     = active_q && !(popped_all_q && !wr_q) && !starved;
    act_o.stall_in = starved;
  end
  always_comb begin
    mon_o        = '0;
    mon_o.valid  = wr_q && gnt_i;
    mon_o.first  = (beat_q == '0);
    mon_o.last   = (32'(beat_q) + 1 == 32'(nrows));
    mon_o.addr   = DDR_ADDR_BITS'((wrow_q + srow_t'(beat_q)) * srow_t'(ROW_BYTES));
    mon_o.nbytes = 8'(ROW_BYTES);
    mon_o.data   = req_o.wdata;
  end

  logic unused;
  assign unused = in_data_i.pad;
endmodule
