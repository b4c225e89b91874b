// Round-robin arbiter: grants one requester per cycle; the priority pointer moves past the
// winner when the grant is taken (ack_i). Without ack_i the grant stays where it is, which
// keeps a granted stream stable while its target stalls.
module ax_rr_arb #(
  parameter int unsigned N = 2,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [N-1:0]    req_i,
  input  logic            ack_i,
  output logic [N-1:0]    gnt_o,
  output logic [IdxW-1:0] idx_o,
  output logic            valid_o
);
  logic [IdxW-1:0] ptr_q, ptr_d;

  always_comb begin
    gnt_o   = '0;
    idx_o   = '0;
    valid_o = 1'b0;
    // Search from the pointer upwards, wrapping.
    for (int unsigned k = 0; k < N; k++) begin
      logic [IdxW:0] i;
      i = {1'b0, ptr_q} + (IdxW + 1)'(k);
      if (i >= (IdxW + 1)'(N)) i = i - (IdxW + 1)'(N);
      if (!valid_o && req_i[i[IdxW-1:0]]) begin
        valid_o = 1'b1;
        idx_o   = i[IdxW-1:0];
      end
    end
    if (valid_o) gnt_o[idx_o] = 1'b1;
  end

  // Separate from the grant so that an ack that depends on the grant makes no loop.
  always_comb begin
    ptr_d = ptr_q;
    if (valid_o && ack_i) ptr_d = (idx_o == IdxW'(N - 1)) ? '0 : idx_o + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ptr_q <= '0;
    else         ptr_q <= ptr_d;
  end
endmodule
