/* glibc_libm FUNC: reads pairs of doubles (x, y) from stdin, writes FUNC(x) or
 * pow(x, y) for each as a double to stdout (native byte order). Used only by
 * gen_glibc_vectors.sh to record what the C library answers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	static double in[2 * 4096], out[4096];
	size_t n;
	int op;

	if (argc != 2)
		return 2;
	op = !strcmp(argv[1], "exp") ? 0 : !strcmp(argv[1], "log") ? 1 :
		!strcmp(argv[1], "pow") ? 2 : !strcmp(argv[1], "sin") ? 3 : -1;
	if (op < 0)
		return 2;
	while ((n = fread(in, 16, 4096, stdin)) > 0)
	{
		for (size_t i = 0; i < n; i++)
		{
			double x = in[2 * i], y = in[2 * i + 1];

			switch (op)
			{
				case 0: out[i] = exp(x); break;
				case 1: out[i] = log(x); break;
				case 2: out[i] = pow(x, y); break;
				case 3: out[i] = sin(x); break;
			}
		}
		if (fwrite(out, 8, n, stdout) != n)
			return 1;
	}
	return 0;
}
