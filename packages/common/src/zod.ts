import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Once, before any schema is built, so `.openapi()` exists on every schema of both services.
extendZodWithOpenApi(z);

export { z };
