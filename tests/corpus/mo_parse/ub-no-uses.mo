model M
equation
 0 = 1;
end M;
