model M
equation
 0 = 1e400;
end M;
