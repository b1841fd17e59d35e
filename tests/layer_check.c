/* The link check of one layer: this empty program is linked with every object of the layer
 * and only the layers below it, so a call from the layer into one above fails to link. */
int main(void)
{
    return 0;
}
