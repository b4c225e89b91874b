// DWPU (spec dwpu_desc, common/ref run_dwpu): depthwise convolution and pooling per lane.
// At start it reads weight_count int8x64 PWORDs from L1 (weight_base_row.., one row request per
// cycle on its own L1 port, a lost bank retries) into its weight buffer (a single-port SRAM of
// dwpu_weight_pwords rows). Then per output (o3 outermost .. o0 innermost) it pops `taps`
// elements, one per cycle, and combines them lane by lane in int32:
//   CONV acc += x * w[group + t] (group = sum(ok * ok_wstride)), MAX / MIN, SUM acc += x,
//   AVERAGE round_half_even(sum / divisor), divisor 0 = the number of taps without the pad flag.
// The output is pushed mvm_latency cycles after its last tap (docs/timing.md); the next output's
// first tap may pop in the next cycle. An output starts only when a slot of the output FIFO
// (stream_depth) is reserved for it. Faults: weights outside L1 (L1_RANGE, before any tap),
// a CONV tap whose weight index is outside the loaded weights (DESC_RANGE, at that tap).
// The weight buffer is read one cycle ahead (registered read): the tap counters know the next
// index, so the read of the tap about to pop is always in flight.
module ax_dwpu
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Rows = L1_ROWS
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       start_i,
  input  logic       abort_i,
  // verilator lint_off UNUSEDSIGNAL
  input  dwpu_desc_t desc_i,       // held stable while busy; reserved words unused
  // verilator lint_on UNUSEDSIGNAL
  output logic       busy_o,
  output logic       done_o,
  output unit_err_t  err_o,
  output act_t       act_o,
  // L1 row port (weight reads)
  output logic       req_valid_o,
  output mem_req_t   req_o,
  input  logic       gnt_i,
  input  logic       rsp_valid_i,
  input  row_t       rdata_i,
  // input stream (int8x64)
  input  logic       in_valid_i,
  output logic       in_ready_o,
  input  strm_t      in_data_i,
  // output stream (int32x64)
  output logic       out_valid_o,
  input  logic       out_ready_i,
  output strm_t      out_data_o
);
  localparam int unsigned WAW  = $clog2(DWPU_WEIGHT_PWORDS);
`ifndef SYNTHESIS
  initial assert (MVM_LATENCY >= 1) else $fatal(1, "ax_dwpu: mvm_latency must be >= 1");
`endif

  logic        active_q, active_d, issued_q, issued_d, fault_q, fault_d;
  logic        run_q, run_d;       // 0: loading weights, 1: taps
  logic [9:0]  wreq_q, wreq_d, wrsp_q, wrsp_d;
  logic [7:0]  t_q, t_d;
  logic [3:0][15:0] o_q, o_d, o_nx, osz;
  logic        tail_credit, drained;
  logic signed [31:0] idx, idx_next;
  logic        credit, working, conv, wbad, rng_bad, fault_tap, fault_rng, pop, last_tap,
               last_out, loading, loaded;

  // weight group of an output: sum(ok * ok_wstride)
  logic [3:0][7:0] ws;
  assign ws = {desc_i.o3_wstride, desc_i.o2_wstride, desc_i.o1_wstride, desc_i.o0_wstride};
  // (argument and loop names unlike any of ax_datapath's: Verilator 5.006's VARHIDDEN looks
  // through the inlined instance in the 4-core model)
  function automatic logic signed [31:0] group_of(logic [3:0][7:0] strides, logic [3:0][15:0] outs);
    logic signed [31:0] g;
    g = '0;
    for (int unsigned dim = 0; dim < 4; dim++)
      g = g + 32'($signed(strides[dim])) * $signed({16'b0, outs[dim]});
    return g;
  endfunction

  always_comb begin
    logic carry;
    for (int unsigned k = 0; k < 4; k++) osz[k] = 16'd1;
    if (desc_i.ndims >= 3'd1) osz[0] = desc_i.o0_size;
    if (desc_i.ndims >= 3'd2) osz[1] = desc_i.o1_size;
    if (desc_i.ndims >= 3'd3) osz[2] = desc_i.o2_size;
    if (desc_i.ndims >= 3'd4) osz[3] = desc_i.o3_size;
    last_tap = (32'(t_q) + 1 >= 32'(desc_i.taps));
    last_out = 1'b1;
    for (int unsigned k = 0; k < 4; k++) if (o_q[k] + 16'd1 < osz[k]) last_out = 1'b0;
    carry = 1'b1;
    o_nx  = o_q;
    for (int unsigned k = 0; k < 4; k++) begin
      if (carry) begin
        if (o_q[k] + 16'd1 < osz[k]) begin
          o_nx[k] = o_q[k] + 16'd1;
          carry   = 1'b0;
        end else o_nx[k] = '0;
      end
    end
    idx      = group_of(ws, o_q) + 32'(t_q);
    idx_next = last_tap ? group_of(ws, o_nx) : idx + 32'sd1;
  end

  assign conv      = (desc_i.op == DWPU_OP_CONV);
  assign rng_bad   = (32'(desc_i.weight_base_row) + 32'(desc_i.weight_count) > 32'(Rows));
  assign loading   = active_q && !fault_q && !run_q;
  assign fault_rng = loading && rng_bad;
  assign loaded    = loading && !rng_bad && (wrsp_q == 10'(desc_i.weight_count));
  assign credit    = (t_q != '0) || tail_credit;
  assign working   = active_q && run_q && !issued_q && !fault_q;
  assign wbad      = conv && ((idx < 0) || (idx >= 32'(desc_i.weight_count)));
  assign fault_tap = working && in_valid_i && credit && wbad;
  assign in_ready_o = working && credit && !wbad;
  assign pop       = in_valid_i && in_ready_o;

  // weight requests: one row per cycle until all are granted
  assign req_valid_o = loading && !rng_bad && (wreq_q < 10'(desc_i.weight_count));
  always_comb begin
    req_o     = '0;
    req_o.we  = 1'b0;
    req_o.row = MEM_ROW_AW'(32'(desc_i.weight_base_row) + 32'(wreq_q));
    req_o.be  = '1;
  end

  always_comb begin
    active_d = active_q;
    issued_d = issued_q;
    fault_d  = fault_q || fault_tap || fault_rng;
    run_d    = run_q || loaded;   // the read of the first tap's weight goes out this cycle
    wreq_d   = wreq_q + 10'(req_valid_o && gnt_i);
    wrsp_d   = wrsp_q + 10'(loading && rsp_valid_i);
    t_d      = t_q;
    o_d      = o_q;
    if (pop) begin
      if (last_tap) begin
        t_d = '0;
        o_d = o_nx;
        if (last_out) issued_d = 1'b1;
      end else t_d = t_q + 8'd1;
    end
    if (active_q && (issued_q || fault_q) && drained) active_d = 1'b0;
    if (start_i) begin
      active_d = 1'b1;
      issued_d = 1'b0;
      fault_d  = 1'b0;
      run_d    = 1'b0;
      wreq_d   = '0;
      wrsp_d   = '0;
      t_d      = '0;
      o_d      = '0;
    end
    if (abort_i) active_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      issued_q <= 1'b0;
      fault_q  <= 1'b0;
      run_q    <= 1'b0;
      wreq_q   <= '0;
      wrsp_q   <= '0;
      t_q      <= '0;
      o_q      <= '0;
    end else begin
      active_q <= active_d;
      issued_q <= issued_d;
      fault_q  <= fault_d;
      run_q    <= run_d;
      wreq_q   <= wreq_d;
      wrsp_q   <= wrsp_d;
      t_q      <= t_d;
      o_q      <= o_d;
    end
  end

  // ---- weight buffer: written during the load, read ahead during the run ----
  logic           wb_req, wb_we;
  logic [WAW-1:0] wb_addr;
  row_t           w;
  assign wb_we   = loading && rsp_valid_i;
  assign wb_req  = wb_we || loaded || (active_q && run_q);
  assign wb_addr = wb_we ? WAW'(wrsp_q) : WAW'(pop ? idx_next : idx);
  ax_sram #(.Width(ROW_BITS), .Depth(DWPU_WEIGHT_PWORDS)) u_wbuf (
    .clk_i   (clk_i),
    .req_i   (wb_req),
    .we_i    (wb_we),
    .addr_i  (wb_addr),
    .be_i    ('1),
    .wdata_i (rdata_i),
    .rdata_o (w)
  );

  // ---- lanes: computed only in a tap cycle (an idle DWPU costs no simulation time) ----
  logic [PWORD_LANES-1:0][31:0] acc_q;
  logic [7:0]                   real_q;   // taps without the pad flag in the current output
  always_ff @(posedge clk_i) begin
    if (pop) begin
      for (int unsigned n = 0; n < PWORD_LANES; n++) begin
        logic signed [31:0] x, a;
        x = 32'($signed(in_data_i.data[8*n +: 8]));
        a = (t_q == '0) ? 32'sd0 : $signed(acc_q[n]);
        unique case (desc_i.op)
          DWPU_OP_CONV: acc_q[n] <= a + x * 32'($signed(w[8*n +: 8]));
          DWPU_OP_MAX:  acc_q[n] <= (t_q == '0 || x > a) ? x : a;
          DWPU_OP_MIN:  acc_q[n] <= (t_q == '0 || x < a) ? x : a;
          default:      acc_q[n] <= a + x;   // SUM, AVERAGE
        endcase
      end
      real_q <= ((t_q == '0) ? 8'd0 : real_q) + 8'(!in_data_i.pad);
    end
  end

  logic [PWORD_LANES-1:0][31:0] avg, res;
  logic [15:0]                  divisor;
  assign divisor = (desc_i.divisor != '0) ? desc_i.divisor : 16'(real_q);
  ax_dwpu_div u_div (
    .sum_i (acc_q),
    .div_i (divisor),
    .avg_o (avg)
  );
  assign res = (desc_i.op == DWPU_OP_AVERAGE) ? avg : acc_q;

  // result tail: an output reserves its slot with its first tap and enters the FIFO mvm_latency
  // cycles after its last tap (the accumulator holds it the cycle after: sampled then)
  ax_result_tail #(.T(strm_t), .Depth(STREAM_DEPTH), .Stages(MVM_LATENCY), .Sample(1)) u_tail (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .abort_i     (abort_i),
    .reserve_i   (pop && t_q == '0),
    .valid_i     (pop && last_tap),
    .data_i      ('{pad: 1'b0, data: elem_t'(res)}),
    .credit_o    (tail_credit),
    .drained_o   (drained),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

  assign busy_o = active_q;
  assign done_o = active_q && issued_q && !fault_q && drained;
  always_comb begin
    err_o       = '0;
    err_o.valid = fault_tap || fault_rng;
    err_o.code  = fault_rng ? ERROR_CODE_L1_RANGE : ERROR_CODE_DESC_RANGE;
    err_o.addr  = fault_rng ? 32'(desc_i.weight_base_row) : idx;
    act_o           = '0;
    act_o.busy      = loading || pop;
    act_o.stall_in  = working && !in_valid_i && credit && !wbad;
    act_o.stall_out = working && !credit;
  end

  logic unused;
  assign unused = ^in_data_i.data[ELEM_BITS-1:ROW_BITS];
endmodule
