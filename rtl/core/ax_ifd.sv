// IFD: walks L1 (ax_walk_gen) and pushes one stream element per walk step: walk_i, then its
// walk_i.segs later segments segs_i[0..] (spec walk.segs, guide §8.3), the first element of a
// segment requested the cycle after the last row of the segment before (no bubble: the walk
// counters rewind as that row is granted). An element of dtype
// dt takes R(dt) consecutive row requests, one per cycle (a lost bank retries next cycle); a pad
// element (a guard false) reads nothing but still takes R(dt) cycles and carries pad_value (its
// low lane bits) in every lane with the pad flag. The element is pushed IFD_LATENCY cycles after
// its last row was granted (docs/timing.md). The output FIFO (stream_depth) is part of the unit;
// an element starts only when a FIFO slot is reserved for it, so the stream runs at one int8
// element per cycle with no gaps. A row outside L1 stops the walk with L1_RANGE (earlier
// elements are still pushed). The walk must be validated by the command processor.
module ax_ifd
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Rows = L1_ROWS
) (
  input  logic      clk_i,
  input  logic      rst_ni,
  input  logic      start_i,     // pulse: run walk_i (held stable until done)
  input  logic      abort_i,     // drop everything (the datapath aborts)
  // verilator lint_off UNUSEDSIGNAL
  input  walk_t     walk_i,      // the walk fields are ax_walk_gen's; cast_from is unused here
  input  walk_t [IFD_SEG_WALKS-1:0] segs_i,  // its later segments (walk_i.segs of them)
  // verilator lint_on UNUSEDSIGNAL
  output logic      busy_o,
  output logic      done_o,      // pulse: the last element was pushed
  output unit_err_t err_o,
  output act_t      act_o,
  // L1 row port
  output logic      req_valid_o,
  output mem_req_t  req_o,
  input  logic      gnt_i,
  input  logic      rsp_valid_i,
  input  row_t      rdata_i,
  // stream
  output logic      out_valid_o,
  input  logic      out_ready_i,
  output strm_t     out_data_o
);
  localparam int unsigned ExtraStages = IFD_LATENCY - 2;

`ifndef SYNTHESIS
  initial assert (IFD_LATENCY >= 2) else $fatal(1, "ax_ifd: ifd_latency must be >= 2");
`endif

  logic        active_q, active_d, issued_q, issued_d;
  logic [1:0]  beat_q, beat_d;
  srow_t       row;
  logic        pass, last, step_next;
  logic [2:0]  nrows;
  logic        credit, drained, in_range, progress, complete;

  // the segment being walked: 0 = walk_i, k = segs_i[k - 1]
  localparam int unsigned SegW = $clog2(IFD_SEG_WALKS + 1);
  logic [SegW-1:0] seg_q, seg_d;
  walk_t           cur;
  logic            more, seg_next;
  function automatic walk_t seg_walk(walk_t first, walk_t [IFD_SEG_WALKS-1:0] segs, logic [SegW-1:0] k);
    return (k == '0) ? first : segs[32'(k) - 1];
  endfunction
  assign cur      = seg_walk(walk_i, segs_i, seg_q);
  assign more     = 32'(seg_q) < 32'(walk_i.segs);
  assign seg_next = complete && last && more;

  ax_walk_gen u_walk (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .walk_i  (cur),
    .start_i (start_i || seg_next),
    .next_i  (step_next),
    .row_o   (row),
    .pass_o  (pass),
    .last_o  (last)
  );

  assign nrows    = rows_of(cur.dtype);
  assign in_range = (row >= 0) && (row + srow_t'(nrows) <= srow_t'(Rows));
  // A new element (beat 0) needs a reserved slot; a loaded one needs its row granted.
  logic working, need_credit;
  assign working     = active_q && !issued_q;
  assign need_credit = (beat_q == '0);
  assign req_valid_o = working && pass && in_range && (!need_credit || credit);
  assign progress    = working && (!need_credit || credit) && (pass ? (in_range && gnt_i) : 1'b1);
  assign complete    = progress && (32'(beat_q) + 1 == 32'(nrows));
  assign step_next   = complete;

  always_comb begin
    req_o     = '0;
    req_o.we  = 1'b0;
    req_o.row = MEM_ROW_AW'(row + srow_t'(beat_q));
    req_o.be  = '1;
  end

  // L1_RANGE: the element that would leave L1 stops the walk.
  logic range_fault;
  assign range_fault = working && pass && !in_range && (!need_credit || credit);

  always_comb begin
    active_d = active_q;
    issued_d = issued_q;
    beat_d   = beat_q;
    if (progress) beat_d = complete ? '0 : beat_q + 2'd1;
    seg_d    = seg_q;
    if (seg_next) seg_d = seg_q + 1'b1;
    if (complete && last && !more) issued_d = 1'b1;
    if (range_fault) issued_d = 1'b1;
    if (active_q && issued_q && drained) active_d = 1'b0;
    if (start_i) begin
      active_d = 1'b1;
      issued_d = 1'b0;
      beat_d   = '0;
      seg_d    = '0;
    end
    if (abort_i) begin
      active_d = 1'b0;
      issued_d = 1'b0;
      beat_d   = '0;
    end
  end

  logic range_hit_q;  // a fault ends the task without the done pulse
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q    <= 1'b0;
      issued_q    <= 1'b0;
      beat_q      <= '0;
      seg_q       <= '0;
      range_hit_q <= 1'b0;
    end else begin
      active_q    <= active_d;
      issued_q    <= issued_d;
      beat_q      <= beat_d;
      seg_q       <= seg_d;
      if (start_i || abort_i) range_hit_q <= 1'b0;
      else if (range_fault)   range_hit_q <= 1'b1;
    end
  end

  assign busy_o = active_q;
  assign done_o = active_q && issued_q && drained && !range_hit_q;
  always_comb begin
    err_o       = '0;
    err_o.valid = range_fault;
    err_o.code  = ERROR_CODE_L1_RANGE;
    err_o.addr  = 32'(row);
  end
  always_comb begin
    act_o           = '0;
    act_o.busy      = working && !(need_credit && !credit);
    act_o.stall_out = working && need_credit && !credit;
  end

  // ---- data path: the granted row's beat, the completion marker, the assembly buffer ----
  logic [1:0] rsp_beat_q;
  logic       mark1_q, pad1_q, mark2_q, pad2_q;
  logic [SegW-1:0] seg1_q, seg2_q;   // the segment of the element (its pad dtype and value)
  elem_t      asm_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_beat_q <= '0;
      mark1_q    <= 1'b0;
      pad1_q     <= 1'b0;
      mark2_q    <= 1'b0;
      pad2_q     <= 1'b0;
      seg1_q     <= '0;
      seg2_q     <= '0;
    end else begin
      rsp_beat_q <= beat_q;
      mark1_q    <= complete && !abort_i;
      pad1_q     <= !pass;
      mark2_q    <= mark1_q && !abort_i;
      pad2_q     <= pad1_q;
      seg1_q     <= seg_q;
      seg2_q     <= seg1_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rsp_valid_i) asm_q[ROW_BITS * rsp_beat_q +: ROW_BITS] <= rdata_i;
  end

  function automatic elem_t splat(dtype_e d, logic [31:0] v);
    elem_t e;
    e = '0;
    for (int unsigned n = 0; n < PWORD_LANES; n++) begin
      unique case (d)
        DTYPE_INT8:    e[8*n +: 8]   = v[7:0];
        DTYPE_FLOAT16: e[16*n +: 16] = v[15:0];
        default:       e[32*n +: 32] = v;
      endcase
    end
    return e;
  endfunction

  strm_t elem2;
  // verilator lint_off UNUSEDSIGNAL
  walk_t seg2;   // its dtype and pad_value
  // verilator lint_on UNUSEDSIGNAL
  assign seg2 = seg_walk(walk_i, segs_i, seg2_q);
  always_comb begin
    elem2.pad  = pad2_q;
    elem2.data = pad2_q ? splat(seg2.dtype, seg2.pad_value) : asm_q;
  end

  // result tail: an element reserves its slot with its first row request and enters the FIFO
  // ExtraStages cycles after its assembly (IFD_LATENCY after its last row's grant)
  ax_result_tail #(.T(strm_t), .Depth(STREAM_DEPTH), .Stages(ExtraStages), .Sample(0)) u_tail (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .abort_i     (abort_i),
    .reserve_i   (progress && need_credit),
    .valid_i     (mark2_q),
    .data_i      (elem2),
    .credit_o    (credit),
    .drained_o   (drained),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );
endmodule
