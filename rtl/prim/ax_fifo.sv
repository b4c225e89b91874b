// Valid/ready FIFO parameterised by payload type. Registered storage, fall-through free: an
// element pushed in cycle t is visible at the output in cycle t+1. clr_i drops every element.
// With Peek, out_next_o shows the element behind the head (valid when count_o >= 2), for a
// consumer that prepares the next element while the head is in use (the command processor's
// queues); without it the port is 0 and costs nothing (a traced model would evaluate the read).
module ax_fifo #(
  parameter type         T     = logic,
  parameter int unsigned Depth = 4,
  parameter bit          CheckIn = 1'b1,  // 0: the input is a pulse that may be dropped when full
  parameter bit          Peek    = 1'b0,  // 1: out_next_o reads the entry behind the head
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clr_i,
  input  logic            in_valid_i,
  output logic            in_ready_o,
  input  T                in_data_i,
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output T                out_data_o,
  output T                out_next_o,
  output logic [CntW-1:0] count_o
);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;

  T                mem_q [Depth];
  logic [PtrW-1:0] rd_q, rd_d, wr_q, wr_d;
  logic [CntW-1:0] cnt_q, cnt_d;
  logic            push, pop;

  assign in_ready_o  = (cnt_q != CntW'(Depth));
  assign out_valid_o = (cnt_q != '0);
  assign out_data_o  = mem_q[rd_q];
  assign count_o     = cnt_q;
  assign push        = in_valid_i && in_ready_o;
  assign pop         = out_valid_o && out_ready_i;

  function automatic logic [PtrW-1:0] incr(logic [PtrW-1:0] p);
    return (p == PtrW'(Depth - 1)) ? '0 : p + 1'b1;
  endfunction
  if (Peek) begin : g_peek
    assign out_next_o = mem_q[incr(rd_q)];
  end else begin : g_no_peek
    assign out_next_o = '0;
  end

  always_comb begin
    rd_d  = pop ? incr(rd_q) : rd_q;
    wr_d  = push ? incr(wr_q) : wr_q;
    cnt_d = cnt_q + CntW'(push) - CntW'(pop);
    if (clr_i) begin
      rd_d  = '0;
      wr_d  = '0;
      cnt_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q  <= '0;
      wr_q  <= '0;
      cnt_q <= '0;
    end else begin
      rd_q  <= rd_d;
      wr_q  <= wr_d;
      cnt_q <= cnt_d;
    end
  end

  // Storage has no reset: only occupied entries are ever read.
  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q] <= in_data_i;
  end

  if (CheckIn) begin : g_check
    ax_stream_check #(.T(T)) u_check_in (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .clr_i   (clr_i),
      .valid_i (in_valid_i),
      .ready_i (in_ready_o),
      .data_i  (in_data_i)
    );
  end
endmodule
