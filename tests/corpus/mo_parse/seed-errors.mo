model Bad
  Real x(start = 1;
  parameter Integer n = #EMPTY#;
  Boolean b = x >= 0
equation
  der(x) = if b then -x else 'y.z' + ;
  when x < 0 then reinit(x, 1); end when
  for i in 1:n loop end for;
end Good;
