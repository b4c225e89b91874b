// Barrier network of axcore_top: core c is released (one-cycle pulse) when it waits in a
// barrier and every core of its mask waits in a barrier with the same id.
module ax_barrier_net #(
  parameter int unsigned Cores = 1
) (
  input  logic [Cores-1:0]      arrive_i,
  input  logic [Cores-1:0][7:0] id_i,
  input  logic [Cores-1:0][7:0] mask_i,
  output logic [Cores-1:0]      release_o
);
  always_comb begin
    for (int unsigned c = 0; c < Cores; c++) begin
      release_o[c] = arrive_i[c];
      for (int unsigned m = 0; m < Cores; m++) begin
        if (mask_i[c][m] && !(arrive_i[m] && id_i[m] == id_i[c])) release_o[c] = 1'b0;
      end
    end
  end
  // mask bits of cores the build does not have are never read
  logic [Cores-1:0] unused;
  for (genvar c = 0; c < Cores; c++) begin : g_unused
    assign unused[c] = ^(mask_i[c] >> Cores);
  end
endmodule
