// The result tail of a streaming unit (IFD, MVM, DWPU, DPU): a result announced by valid_i
// enters the unit's output FIFO Stages cycles later; its data is data_i of the cycle Sample
// cycles after valid_i (0 <= Sample <= Stages), held in a delay line for the rest of the way.
// A unit reserves a FIFO slot (reserve_i) before it starts the work of a result; credit_o says
// a slot is free (FIFO elements + reserved results in flight < Depth), drained_o that no
// reserved result is still on its way. abort_i drops everything (FIFO, delay line, reservations).
module ax_result_tail #(
  parameter type         T      = logic,
  parameter int unsigned Depth  = 4,
  parameter int unsigned Stages = 1,
  parameter int unsigned Sample = 0,
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic abort_i,
  input  logic reserve_i,    // a result will come: take a slot
  input  logic valid_i,      // the reserved result is on its way: it enqueues Stages cycles later
  input  T     data_i,       // the result's data, Sample cycles after its valid_i
  output logic credit_o,
  output logic drained_o,
  output logic out_valid_o,
  input  logic out_ready_i,
  output T     out_data_o
);
`ifndef SYNTHESIS
  initial assert (Sample <= Stages) else $fatal(1, "ax_result_tail: Sample must be <= Stages");
`endif
  localparam int unsigned Delay = Stages - Sample;   // registers between the sample and the FIFO

  logic enq;
  T     res;
  if (Stages == 0) begin : g_direct
    assign enq = valid_i && !abort_i;
    assign res = data_i;
  end else begin : g_stages
    logic [Stages-1:0] v_q, v_d;   // v_q[i]: a result i + 1 cycles after its valid_i
    if (Stages == 1) begin : g_one
      assign v_d = valid_i;
    end else begin : g_shift
      assign v_d = {v_q[Stages-2:0], valid_i};
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) v_q <= '0;
      else if (abort_i) v_q <= '0;
      else v_q <= v_d;
    end
    assign enq = v_q[Stages-1] && !abort_i;
    if (Delay == 0) begin : g_sampled
      assign res = data_i;
    end else begin : g_delay
      logic sample;
      if (Sample == 0) begin : g_s0
        assign sample = valid_i;
      end else begin : g_sn
        assign sample = v_q[Sample-1];
      end
      T [Delay-1:0] d_q;
      always_ff @(posedge clk_i) begin
        if (sample) d_q[0] <= data_i;
        for (int unsigned i = 1; i < Delay; i++) d_q[i] <= d_q[i-1];
      end
      assign res = d_q[Delay-1];
    end
  end

  logic [CntW-1:0] infl_q, fifo_cnt;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)      infl_q <= '0;
    else if (abort_i) infl_q <= '0;
    else              infl_q <= infl_q + CntW'(reserve_i) - CntW'(enq);
  end
  assign credit_o  = (32'(fifo_cnt) + 32'(infl_q)) < Depth;
  assign drained_o = (infl_q == '0);

  logic in_ready;
  T     unused_next;
  ax_fifo #(.T(T), .Depth(Depth)) u_out (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clr_i       (abort_i),
    .in_valid_i  (enq),
    .in_ready_o  (in_ready),
    .in_data_i   (res),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o),
    .out_next_o  (unused_next),
    .count_o     (fifo_cnt)
  );
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) if (rst_ni && enq) assert (in_ready) else $error("%m: push into a full stream");
`else
  logic unused;
  assign unused = in_ready;
`endif
endmodule
