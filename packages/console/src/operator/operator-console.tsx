/** The operator's console (an admin token). */
export async function checkAdminToken(_secret: string): Promise<void> {
  throw new Error('The operator console is not available yet');
}

export function OperatorConsole(_props: { secret: string; onSignOut: () => void }) {
  return null;
}
