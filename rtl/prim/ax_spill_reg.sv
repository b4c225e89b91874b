// Spill register: a two-entry stream buffer whose in_ready_o and out_valid_o both come from
// flops, so it cuts every combinational path between its sides (full throughput).
module ax_spill_reg #(
  parameter type T = logic
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic clr_i,
  input  logic in_valid_i,
  output logic in_ready_o,
  input  T     in_data_i,
  output logic out_valid_o,
  input  logic out_ready_i,
  output T     out_data_o
);
  // a: the output register; b: the spill slot filled when a is held.
  logic a_full_q, a_full_d, b_full_q, b_full_d;
  T     a_q, a_d, b_q, b_d;

  assign in_ready_o  = !b_full_q;
  assign out_valid_o = a_full_q;
  assign out_data_o  = a_q;

  always_comb begin
    a_full_d = a_full_q;
    b_full_d = b_full_q;
    a_d      = a_q;
    b_d      = b_q;
    if (a_full_q && out_ready_i) begin
      // a leaves; refill from b, else from the input.
      if (b_full_q) begin
        // in_ready_o is low while b is full: the input waits for the next cycle.
        a_d      = b_q;
        b_full_d = 1'b0;
      end else begin
        a_full_d = in_valid_i;
        a_d      = in_data_i;
      end
    end else if (!a_full_q) begin
      a_full_d = in_valid_i;
      a_d      = in_data_i;
    end else if (in_valid_i && !b_full_q) begin
      b_d      = in_data_i;
      b_full_d = 1'b1;
    end
    if (clr_i) begin
      a_full_d = 1'b0;
      b_full_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_full_q <= 1'b0;
      b_full_q <= 1'b0;
    end else begin
      a_full_q <= a_full_d;
      b_full_q <= b_full_d;
    end
  end

  always_ff @(posedge clk_i) begin
    a_q <= a_d;
    b_q <= b_d;
  end

  ax_stream_check #(.T(T)) u_check_in (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .clr_i   (clr_i),
    .valid_i (in_valid_i),
    .ready_i (in_ready_o),
    .data_i  (in_data_i)
  );
endmodule
